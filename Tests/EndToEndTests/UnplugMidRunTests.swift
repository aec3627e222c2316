import DeviceEmulator
import Foundation
import LaunchBench
import TestSupport
import Testing

/// `launchbench emulator` driven on its stdin while a run measures four phones: one is unplugged mid-run. The
/// others finish every launch, the unplugged one's launch is `device-lost`, and nothing measured is lost.
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(5))) struct UnplugMidRunTests {
    @Test func oneOfFourPhonesUnpluggedMidRunLosesOnlyItsOwnLaunches() async throws {
        let folder = EndToEnd.temporaryFolder("unplug")
        let socket = "/tmp/lb-unplug-\(UUID().uuidString.prefix(8)).sock"
        let emulator = try LaunchbenchCLI.start(
            ["emulator", "--devices", "4", "--ios", "14.8", "--time-scale", "0.5", "--socket", socket],
            writableInput: true)
        defer { emulator.send(signal: SIGTERM) }
        let first = try await emulator.readLine(timeout: .seconds(30))
        #expect(first == "USBMUXD_SOCKET_ADDRESS=UNIX:\(socket)")
        let victim = EmulatedDeviceSpec.numbered(2, productType: "iPhone12,1", osVersion: "14.8").udid

        let app = PackageRoot.at("Fixtures/SampleApp/Sample.app").path
        let output = folder.appendingPathComponent("results")
        let run = try LaunchbenchCLI.start(
            [
                "run", app, "--iterations", "20", "--warm", "0", "--grace", "1", "--output", output.path,
                "--env", "DYLD_INSERT_LIBRARIES=/usr/lib/libLaunchProbe.dylib",
            ],
            environment: ["USBMUXD_SOCKET_ADDRESS": "UNIX:\(socket)", "NO_COLOR": "1"])
        // Unplug it once it has measured a launch: 20 iterations of ~0.6 s leave many seconds for the detach to
        // land mid-run on a loaded machine.
        let samples = output.appendingPathComponent("samples.jsonl")
        try await waitUntil("the victim measured a launch", timeout: .seconds(120)) {
            ((try? String(contentsOf: samples, encoding: .utf8)) ?? "").contains(victim)
        }
        try emulator.send(line: "detach \(victim)")
        // The lab's table comes first on stdout; the reply is the first `ok`/`error` line after it (bounded).
        var reply: String?
        for _ in 0..<20 {
            guard let line = try await emulator.readLine(timeout: .seconds(30)) else { break }
            if line.hasPrefix("ok") || line.hasPrefix("error") {
                reply = line
                break
            }
        }
        #expect(reply == "ok detached \(victim)")

        let status = try await run.waitForExit(timeout: .seconds(180))
        #expect(status == 3, "a device was lost: \(run.standardError)")
        let measured = try EndToEnd.samplesOnDisk(output)
        let others = Dictionary(grouping: measured.filter { $0.deviceUDID != victim }, by: \.deviceUDID)
        #expect(others.count == 3)
        for (udid, launches) in others {
            #expect(
                launches.count == 20 && launches.allSatisfy { $0.status == .ok }, "\(udid): \(launches.map(\.status))")
        }
        let lost = measured.filter { $0.deviceUDID == victim }
        #expect(lost.last?.status == .deviceLost, "\(lost.map(\.status))")
        #expect(
            lost.dropLast().allSatisfy { $0.status == .ok },
            "\(lost.map { "\($0.status.rawValue): \($0.message ?? "")" })")
        let manifest = try RunManifest.read(from: output.appendingPathComponent("run.json"))
        #expect(manifest.deviceOutcomes?.first { $0.udid == victim }?.outcome == .lost)
    }
}
