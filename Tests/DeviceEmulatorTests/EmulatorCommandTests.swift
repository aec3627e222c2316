import Foundation
import TestSupport
import Testing

/// `launchbench emulator` as a user runs it: a foreground process, stopped with Ctrl-C.
@Suite(
    .tags(.emulator, .subprocess),
    .timeLimit(.minutes(5))
)
struct EmulatorCommandTests {
    @Test(.enabled(if: ExternalTool.isInstalled("idevice_id"), "idevice_id missing: run Scripts/bootstrap"))
    func runsUntilInterruptedAndRemovesItsSocket() async throws {
        let child = try LaunchbenchCLI.start(["emulator", "--devices", "2"])
        let first = try await child.readLine(timeout: .seconds(60))
        let line = try #require(first, "no address printed; stderr: \(child.standardError)")
        #expect(line.hasPrefix("USBMUXD_SOCKET_ADDRESS=UNIX:/"))
        let address = String(line.dropFirst("USBMUXD_SOCKET_ADDRESS=".count))
        let socketPath = String(address.dropFirst("UNIX:".count))
        #expect(FileManager.default.fileExists(atPath: socketPath))

        var udids: [String] = []
        while udids.count < 2, let row = try await child.readLine(timeout: .seconds(30)) {
            if row.hasPrefix("00008030-") { udids.append(String(row.prefix(25))) }
        }
        #expect(udids.count == 2)

        let listed = try await ExternalTool.run("idevice_id", ["-l"], usbmuxd: address)
        #expect(listed.exitCode == 0, "stderr: \(listed.standardError)")
        #expect(listed.lines.sorted() == udids.sorted())

        child.send(signal: SIGINT)
        let status = try await child.waitForExit(timeout: .seconds(60))
        #expect(status == 0, "stderr: \(child.standardError)")
        #expect(!FileManager.default.fileExists(atPath: socketPath))
        #expect(!FileManager.default.fileExists(atPath: (socketPath as NSString).deletingLastPathComponent))
    }

    @Test(.enabled(if: ExternalTool.isInstalled("ideviceinstaller"), "ideviceinstaller missing: run Scripts/bootstrap"))
    func writesWhatTheDevicesWereBusyWithOnStop() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lb-activity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("activity.jsonl")
        let child = try LaunchbenchCLI.start([
            "emulator", "--devices", "1", "--time-scale", "0.1", "--activity-log", log.path,
        ])
        let first = try await child.readLine(timeout: .seconds(60))
        let line = try #require(first, "no address printed; stderr: \(child.standardError)")
        let address = String(line.dropFirst("USBMUXD_SOCKET_ADDRESS=".count))
        var udid: String?
        while udid == nil, let row = try await child.readLine(timeout: .seconds(30)) {
            if row.hasPrefix("00008030-") { udid = String(row.prefix(25)) }
        }
        let device = try #require(udid)

        let installed = try await ExternalTool.run(
            "ideviceinstaller", ["-u", device, "-i", FixturePaths.sampleApp.path], usbmuxd: address)
        #expect(installed.exitCode == 0, "stderr: \(installed.standardError)")
        child.send(signal: SIGTERM)
        #expect(try await child.waitForExit(timeout: .seconds(60)) == 0, "stderr: \(child.standardError)")

        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        let objects = try lines.map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let install = try #require(objects.first { $0["name"] as? String == "Install" })
        #expect(install["udid"] as? String == device)
        #expect(install["kind"] as? String == "installer")
        #expect(install["bundleID"] as? String == "com.example.launchbench.sample")
        #expect(install["startedAt"] is Double)
        // 13 status messages of 50 emulated ms at time scale 0.1; a stuck timer would take far longer.
        let seconds = try #require(install["seconds"] as? Double)
        #expect(seconds >= 0.065 * 0.99 && seconds < 10)
    }

    /// Failures while running are runtime failures (exit 1), not option mistakes (64, with the usage): a socket
    /// the lab cannot listen on. An activity log whose folder is missing is an option mistake, found up front.
    @Test func runtimeFailuresExitOneNamingThePath() async throws {
        // A folder that does not exist (nothing is created), short enough for a socket path on macOS too.
        let missing = URL(fileURLWithPath: "/tmp/launchbench-missing-\(UUID().uuidString.prefix(8))")

        let socket = missing.appendingPathComponent("usbmuxd.sock").path
        let unbound = try LaunchbenchCLI.start(["emulator", "--socket", socket])
        #expect(try await unbound.waitForExit(timeout: .seconds(60)) == 1, "\(unbound.standardError)")
        #expect(unbound.standardError.hasPrefix("Error: ") && unbound.standardError.contains(socket))
        #expect(unbound.standardError.components(separatedBy: "Error:").count == 2)
        #expect(!unbound.standardError.contains("Usage:"))

        // An activity log that cannot be written is found before the lab starts (an option mistake, 64), not
        // after a whole session of activity was recorded for nothing.
        let log = missing.appendingPathComponent("activity.jsonl").path
        let child = try LaunchbenchCLI.start(["emulator", "--devices", "1", "--activity-log", log])
        #expect(try await child.waitForExit(timeout: .seconds(60)) == 64, "\(child.standardError)")
        #expect(child.standardError.hasPrefix("Error: --activity-log \(log)"), "\(child.standardError)")
        #expect(child.standardError.contains("mkdir -p \(missing.path)"), "\(child.standardError)")
        #expect(!child.standardError.contains("USBMUXD_SOCKET_ADDRESS="))
    }

    @Test func rejectsBadValuesNamingTheFix() async throws {
        let cases: [([String], String)] = [
            (["--devices", "17"], "--devices 17"),
            (["--ios", "fourteen"], "--ios fourteen"),
            (["--model", "iPhone99,9"], "iPhone12,1"),
            (["--listen", "nohost"], "HOST:PORT"),
            (["--socket", "/tmp/" + String(repeating: "s", count: 110)], "at most 103"),
        ]
        for (arguments, expected) in cases {
            let child = try LaunchbenchCLI.start(["emulator"] + arguments)
            let status = try await child.waitForExit(timeout: .seconds(60))
            #expect(status == 64, "\(arguments)")
            #expect(child.standardError.contains(expected), "\(arguments): \(child.standardError)")
        }
    }
}
