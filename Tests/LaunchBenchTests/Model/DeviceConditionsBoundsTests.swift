import Foundation
import Testing

@testable import LaunchBench

/// Issue 44: every value a phone reports is bounded before it reaches run.json, and a write that fails to
/// encode says so rather than blaming the disk.
@Suite struct DeviceConditionsBoundsTests {
    @Test func impossibleValuesBecomeNotReportedWithTheValueSaid() {
        let raw = DeviceConditions(
            batteryPercent: 1e308, charging: true, temperatureC: -300, uptimeSeconds: .infinity,
            freeStorageBytes: -1, thermalState: "melting")
        let bounded = raw.bounded()
        #expect(bounded.batteryPercent == nil && bounded.temperatureC == nil && bounded.uptimeSeconds == nil)
        #expect(bounded.freeStorageBytes == nil && bounded.thermalState == nil && bounded.charging == true)
        #expect(bounded.unavailable?["battery"] == "the phone reported 1e+308 %, outside 0…100 %: not a real value")
        #expect(bounded.unavailable?["temperature"]?.contains("outside -40…100 °C") == true)
        #expect(bounded.unavailable?["storage"] != nil && bounded.unavailable?["thermal-state"] != nil)
        let real = DeviceConditions(batteryPercent: 80, temperatureC: 31.5, freeStorageBytes: 12e9)
        #expect(real.bounded() == real)
    }

    @Test func aRunJSONThatCannotBeEncodedNamesTheValueNotTheDisk() throws {
        var manifest = RunManifest(runID: "run", app: RunManifest.App(bundleID: "com.example.app"))
        var record = DeviceConditionsRecord()
        record.waitedSeconds = .infinity
        manifest.deviceOutcomes = [RunManifest.DeviceOutcome(udid: "U1")]
        manifest.deviceOutcomes?[0].conditions = record
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString).json")
        let error = #expect(throws: LaunchBenchError.self) { try manifest.write(to: url) }
        let message = error?.localizedDescription ?? ""
        #expect(message.contains("waitedSeconds") && message.contains("inf"), "\(message)")
        #expect(!message.contains("free disk space"), "\(message)")
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }
}
