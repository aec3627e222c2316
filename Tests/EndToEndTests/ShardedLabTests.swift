import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

/// A device lab sharded over hosts: two emulated labs on two sockets (one of them reached over TCP through
/// `socat`, as a remote host's usbmuxd would be), one results folder each, merged and judged as one run.
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(5))) struct ShardedLabTests {
    private func launchbench(_ arguments: [String], usbmuxd: String? = nil) async throws -> (Int32?, String, String) {
        let environment = ["NO_COLOR": "1"].merging(usbmuxd.map { ["USBMUXD_SOCKET_ADDRESS": $0] } ?? [:]) { $1 }
        let outcome = try await LaunchbenchCLI.run(arguments, environment: environment, timeout: .seconds(180))
        return (outcome.status, outcome.stdout, outcome.stderr)
    }

    private func run(_ app: URL, output: URL, usbmuxd: String) async throws {
        let (status, _, error) = try await launchbench(
            [
                "run", app.path, "--iterations", "6", "--warm", "0", "--timeout", "20", "--grace", "3",
                "--output", output.path,
            ], usbmuxd: usbmuxd)
        #expect(status == 0, "\(error)")
    }

    /// A free TCP port on 127.0.0.1 (the kernel picks it; released before socat binds it).
    private func freePort() async throws -> Int {
        let child = try ChildProcess(
            executable: "/usr/bin/env",
            arguments: [
                "python3", "-c",
                "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])",
            ])
        _ = try await child.waitForExit(timeout: .seconds(30))
        return try #require(Int(child.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    @Test func twoLabsAreMergedAndComparedAsOneRunOneOfThemOverSocat() async throws {
        let socat = try #require(
            ["/usr/bin/socat", "/usr/local/bin/socat", "/opt/homebrew/bin/socat"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            }, "socat is missing: Scripts/bootstrap installs it")
        let hostA = [1, 2].map { EmulatedDeviceSpec.numbered($0, productType: "iPhone11,8", osVersion: "12.5.7") }
        let hostB = [3, 4].map { EmulatedDeviceSpec.numbered($0, productType: "iPhone11,8", osVersion: "12.5.7") }
        try await PrivateLab.with(devices: hostA) { labA in
            try await PrivateLab.with(devices: hostB) { labB in
                // Host B's usbmuxd over TCP, as `socat TCP-LISTEN:PORT,fork UNIX-CONNECT:/var/run/usbmuxd` on it.
                let port = try await freePort()
                let socketPath = try #require(labB.socketPath)
                // -d -d: socat says on stderr when it listens.
                let relay = try ChildProcess(
                    executable: socat,
                    arguments: [
                        "-d", "-d", "TCP-LISTEN:\(port),bind=127.0.0.1,reuseaddr,fork", "UNIX-CONNECT:\(socketPath)",
                    ])
                defer { relay.send(signal: SIGTERM) }
                try await relay.waitForOutput("socat listens on 127.0.0.1:\(port)", timeout: .seconds(30)) {
                    $0.standardError.contains("listening on")
                }
                let reachable = try await launchbench(["devices", "--usbmuxd", "127.0.0.1:\(port)"]).0 == 0
                #expect(reachable, "socat did not relay 127.0.0.1:\(port) to \(socketPath): \(relay.standardError)")

                let folder = EndToEnd.temporaryFolder("shards")
                let app = try EndToEnd.makeApp("Sharded", profile: EndToEnd.profile())
                let shard = { (name: String) in folder.appendingPathComponent(name) }
                for side in ["base", "head"] {
                    try await run(app.url, output: shard("\(side)-a"), usbmuxd: labA.usbmuxdSocketAddress)
                    try await run(app.url, output: shard("\(side)-b"), usbmuxd: "127.0.0.1:\(port)")
                    let (status, _, error) = try await launchbench(
                        ["merge", shard("\(side)-a").path, shard("\(side)-b").path, "--output", shard(side).path])
                    #expect(status == 0, "\(error)")
                    #expect(error.contains("24 launches of 4 devices from 2 shards"), "\(error)")
                }
                let merged = try ResultsFolder.loadSamples(shard("base"))
                #expect(Set(merged.samples.map(\.deviceUDID)) == Set((hostA + hostB).map(\.udid)))
                #expect(Set(merged.samples.map(\.runID)).count == 2, "each launch keeps its shard's run id")
                #expect(
                    merged.folder.manifest?.deviceOutcomes?.allSatisfy {
                        $0.notes.first?.contains("Measured in shard") == true
                    }
                        == true)
                #expect(
                    FileManager.default.fileExists(atPath: shard("base").appendingPathComponent("report.html").path))

                let (status, output, error) = try await launchbench(["compare", shard("base").path, shard("head").path])
                #expect(status == 0, "\(output)\(error)")
                #expect(output.contains("Gate: PASSED — 4 unchanged"), "\(output)")

                // One phone cannot be on two hosts: a shard passed twice is refused, naming the device.
                let (twice, _, twiceError) = try await launchbench(
                    ["merge", shard("base-a").path, shard("head-a").path, "--output", shard("twice").path])
                #expect(twice == 1)
                #expect(twiceError.contains("Device \(hostA[0].udid) is in two shards"), "\(twiceError)")
            }
        }
    }
}
