import Foundation
import TestSupport
import Testing

@testable import LaunchEngines

/// A helper started with the run folder's `sitecustomize.py` ends itself when the process that started it is
/// killed with SIGKILL (no exit handler stops it then).
@Suite(
    .tags(.subprocess),
    .enabled(
        if: Pymobiledevice3Locator.onPath("python3", environment: ProcessInfo.processInfo.environment) != nil,
        "python3 is not on PATH")
)
struct HelperParentWatchTests {
    private static func alive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        // A dead child no one has reaped yet (a container's init may not) is a zombie: gone for our purpose.
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return !(stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") ?? false)
    }

    private static func waitFor(seconds: Double, _ condition: () -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return condition()
    }

    @Test func aHelperWhoseParentIsKilledEndsItself() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parent-watch-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pidFile = folder.appendingPathComponent("pid").path
        let ready = folder.appendingPathComponent("ready").path
        // The shell stands in for launchbench: it starts the helper and is then killed with SIGKILL.
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = [
            "-c",
            "python3 -c 'import time; open(\"\(ready)\", \"w\").close(); time.sleep(60)' & echo $! > \(pidFile); wait",
        ]
        shell.environment = try Pymobiledevice3ChecksumFix.environment(adding: ProcessInfo.processInfo.environment)
        try shell.run()
        var helper: Int32 = 0
        defer { if helper > 0 && Self.alive(helper) { kill(helper, SIGKILL) } }
        let started = try await Self.waitFor(seconds: 20) {
            helper =
                Int32(
                    ((try? String(contentsOfFile: pidFile, encoding: .utf8)) ?? "").trimmingCharacters(
                        in: .whitespacesAndNewlines)) ?? 0
            return helper > 0 && FileManager.default.fileExists(atPath: ready)
        }
        try #require(started, "the helper did not start")
        // Not waitUntilExit: Foundation may wait there for the helper too, which still holds the shell's stdout.
        kill(shell.processIdentifier, SIGKILL)
        #expect(try await Self.waitFor(seconds: 15) { !Self.alive(helper) }, "the helper outlived its parent")
    }
}
