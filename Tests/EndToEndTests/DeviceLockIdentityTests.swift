import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

/// One run per device holds however the usbmuxd address is spelled: the built `launchbench`, twice, against
/// one private lab, the second through a symlink to the lab's socket.
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(5))) struct DeviceLockIdentityTests {
    @Test func aSymlinkedSocketToTheSameUsbmuxdIsTheSameLock() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let app = try EndToEnd.makeApp("SameMux", profile: EndToEnd.profile())
            let locks = EndToEnd.temporaryFolder("locks")
            let link = TestSocketPath.make(prefix: "lbl")
            guard case .unix(let socket)? = USBMuxAddress(lab.usbmuxdSocketAddress) else {
                Issue.record("the lab is not on a unix socket: \(lab.usbmuxdSocketAddress)")
                return
            }
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: socket)
            defer { try? FileManager.default.removeItem(atPath: link) }
            func start(_ address: String, output: URL, iterations: Int) throws -> ChildProcess {
                try LaunchbenchCLI.start(
                    ["run", app.url.path, "--iterations", String(iterations), "--output", output.path],
                    environment: [
                        "USBMUXD_SOCKET_ADDRESS": address, "NO_COLOR": "1", "LAUNCHBENCH_LOCK_DIR": locks.path,
                    ].merging(EndToEnd.withoutPymobiledevice3) { $1 })
            }
            let firstOutput = EndToEnd.temporaryFolder("same-mux-1").appendingPathComponent("results")
            let first = try start(lab.usbmuxdSocketAddress, output: firstOutput, iterations: 500)
            defer { first.send(signal: SIGKILL) }
            let samples = firstOutput.appendingPathComponent("samples.jsonl")
            // A launch's line on stderr comes after its sample is written to samples.jsonl.
            try await first.waitForOutput("a first launch", timeout: .seconds(120)) {
                $0.standardError.contains("/500 cold")
            }
            try #require(FileManager.default.fileExists(atPath: samples.path), "the first run measured nothing")

            let secondOutput = EndToEnd.temporaryFolder("same-mux-2").appendingPathComponent("results")
            let second = try start("UNIX:" + link, output: secondOutput, iterations: 1)
            #expect(try await second.waitForExit(timeout: .seconds(60)) == 1, "stderr: \(second.standardError)")
            #expect(second.standardError.contains("process \(first.processIdentifier)"), "\(second.standardError)")
            first.send(signal: SIGKILL)
            _ = try await first.waitForExit(timeout: .seconds(30))
        }
    }
}
