import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

/// Issue 44: a phone whose lockdown says 1e308 % of battery and whose power source says 1e300 °C (the
/// `EmulatedConditions` fault of a broken or hostile phone), read through the real libimobiledevice by the built
/// binary: the run keeps its launches and writes run.json and the exports, those conditions "not reported" with
/// the value said, never a number in run.json.
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(5))) struct HostileConditionsCommandTests {
    @Test func anImpossibleBatteryAndTemperatureBecomeNotReportedAndTheRunEndsWell() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let phone = try #require(lab.devices.first)
            phone.services.conditions.brokenBatteryPercent = 1e308
            phone.services.conditions.brokenTemperatureC = 1e300
            let folder = EndToEnd.temporaryFolder("hostile-conditions")
            let app = try EndToEnd.makeApp("Hostile", profile: EndToEnd.profile(), bundleID: "com.example.e2e.hostile")
            let output = folder.appendingPathComponent("results")
            let outcome = try await LaunchbenchCLI.run(
                [
                    "run", app.url.path, "--iterations", "2", "--warm", "0", "--timeout", "20", "--grace", "3",
                    "--output", output.path,
                ],
                environment: [
                    "USBMUXD_SOCKET_ADDRESS": lab.usbmuxdSocketAddress, "NO_COLOR": "1",
                    "LAUNCHBENCH_LOCK_DIR": folder.appendingPathComponent("locks").path,
                ], timeout: .seconds(240))
            #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
            #expect(outcome.stderr.contains("Its battery is recorded as not reported: the phone reported 1e+308 %"))
            #expect(outcome.stderr.contains("Its temperature is recorded as not reported"))
            let manifest = try RunManifest.read(from: output.appendingPathComponent("run.json"))
            let record = try #require(manifest.outcome(of: phone.udid)?.conditions)
            let typical = try #require(record.typical)
            #expect(typical.batteryPercent == nil && typical.temperatureC == nil)
            #expect(typical.unavailable?["battery"]?.contains("outside 0…100 %") == true, "\(typical)")
            #expect(typical.charging != nil && typical.freeStorageBytes == 31e9)
            for name in ["summary.json", "samples.csv", "report.html"] {
                #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(name).path), "\(name)")
            }
        }
    }
}
