import Foundation
import LaunchBench

/// Runs `xcrun` (found on `PATH`, so tests put a stand-in first) and collects what it printed.
struct Xcrun: Sendable {
    /// `PATH` and the rest, as the child sees them.
    var environment: [String: String]

    struct Output: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The program to start for `arguments` (`xcrun` from `PATH`, or `/usr/bin/env xcrun`).
    func executable() -> String {
        Pymobiledevice3Locator.onPath("xcrun", environment: environment) ?? "/usr/bin/xcrun"
    }

    /// Runs `xcrun arguments…` to completion, at most `timeout`, then kills it.
    func run(_ arguments: [String], timeout: Duration) async throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable())
        process.arguments = arguments
        process.environment = environment
        // xcrun's output goes through files in the run's private folder (`PrivateFolder`), not a shared one.
        let folder = try PrivateFolder.ensure(PrivateFolder.run().appendingPathComponent("xcrun-\(UUID())"))
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("stdout")
        let err = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now >= deadline {
                process.terminate()
                process.waitUntilExit()
                break
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }
}
