import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

/// The run's first launch hangs right after dyld printed its statistics; later launches print LaunchProbe's
/// markers. The first launch ended on the statistics alone (the run did not know yet that the app prints
/// markers), so it must be re-judged once the run learns it — never left `ok` with exit 0.
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(5))) struct HangAfterPreMainTests {
    @Test func aHangAfterDyldOnTheFirstLaunchIsATimeoutOnDiskAndInTheExitCode() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "14.8")) { lab in
            let app = try EndToEnd.makeApp(
                "Hangs",
                profile: EndToEnd.profile(faults: Faults(hang: PointFault(when: LaunchSelector(launches: [1])))))
            let output = EndToEnd.temporaryFolder("hang-first").appendingPathComponent("results")
            let child = try LaunchbenchCLI.start(
                [
                    "run", app.url.path, "--iterations", "4", "--warm", "0", "--timeout", "20", "--grace", "1",
                    "--env", "DYLD_INSERT_LIBRARIES=/usr/lib/libLaunchProbe.dylib", "--output", output.path,
                ],
                environment: ["USBMUXD_SOCKET_ADDRESS": lab.usbmuxdSocketAddress, "NO_COLOR": "1"])
            let status = try await child.waitForExit(timeout: .seconds(180))
            #expect(status == 3, "a launch failed: \(child.standardError)")

            let samples = try EndToEnd.samplesOnDisk(output).sorted { $0.iteration < $1.iteration }
            #expect(samples.map(\.status) == [.timeout, .ok, .ok, .ok])
            #expect(samples[0].message?.contains("Re-judged when the run learned that the app prints markers") == true)
            #expect(samples[0].metrics[.totalPremainMs] != nil, "its pre-main figures are kept")
            #expect(samples[0].metrics[.firstFrameMs] == nil)
            #expect(child.standardError.contains("re-judged: timeout"), "\(child.standardError)")
            // The exports agree with samples.jsonl: one failure on the device.
            let summary = try String(contentsOf: output.appendingPathComponent("summary.csv"), encoding: .utf8)
            #expect(summary.contains(",1,"), "\(summary)")
        }
    }
}
