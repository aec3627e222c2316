import Foundation
import TestSupport
import Testing

/// `launchbench emulator` as a user runs it: a foreground process, stopped with Ctrl-C.
@Suite(
    .enabled(if: BuiltProducts.launchbench != nil, "launchbench is not built: run swift build"),
    .timeLimit(.minutes(5))
)
struct EmulatorCommandTests {
    @Test(.enabled(if: ExternalTool.isInstalled("idevice_id"), "idevice_id missing: run Scripts/bootstrap"))
    func runsUntilInterruptedAndRemovesItsSocket() async throws {
        let child = try ChildProcess(executable: BuiltProducts.launchbench!, arguments: ["emulator", "--devices", "2"])
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

    @Test func rejectsBadValuesNamingTheFix() async throws {
        let cases: [([String], String)] = [
            (["--devices", "17"], "--devices 17"),
            (["--ios", "fourteen"], "--ios fourteen"),
            (["--model", "iPhone99,9"], "iPhone12,1"),
            (["--listen", "nohost"], "HOST:PORT"),
            (["--socket", "/tmp/" + String(repeating: "s", count: 110)], "at most 103"),
        ]
        for (arguments, expected) in cases {
            let child = try ChildProcess(executable: BuiltProducts.launchbench!, arguments: ["emulator"] + arguments)
            let status = try await child.waitForExit(timeout: .seconds(60))
            #expect(status == 64, "\(arguments)")
            #expect(child.standardError.contains(expected), "\(arguments): \(child.standardError)")
        }
    }
}
