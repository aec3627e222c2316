import Foundation
import Testing

@testable import LaunchBench

/// samples.csv carries what samples.jsonl says of each launch beside its figures: the A/B build, what disturbed
/// it and the device's conditions, in columns after the older ones.
@Suite struct SamplesCSVTests {
    private static func sample(_ iteration: Int) -> Sample {
        Sample(
            runID: "r", deviceUDID: "U", deviceName: "Phone", productType: "iPhone14,5", osVersion: "16.7",
            appBundleID: "a.b", appVersion: "1 (1)", iteration: iteration, kind: .cold, status: .ok,
            metrics: [.firstFrameMs: 300], startedAt: Date(timeIntervalSince1970: 0))
    }

    /// The cells of `column`, row by row.
    private static func column(_ name: String, _ samples: [Sample]) throws -> [String] {
        let rows = CSVWriterTests.parse(SamplesCSV.csv(samples).text)
        let index = try #require(rows[0].firstIndex(of: name), "no \(name) column")
        return rows.dropFirst().map { $0[index] }
    }

    @Test func buildPrelaunchAndConditionsHaveColumnsEmptyWhenNotRecorded() throws {
        var disturbed = Self.sample(1)
        disturbed.build = RunManifest.baseBuild
        disturbed.prelaunch = Prelaunch(kind: .prewarm, reason: "DAS Prewarm launch", source: .deviceLog)
        disturbed.setAside = true
        disturbed.conditions = DeviceConditions(
            batteryPercent: 87, charging: false, temperatureC: 31.5, freeStorageBytes: 31_000_000_000)
        var rebuilt = Self.sample(2)
        rebuilt.closureRebuilt = true
        // A device that reported its battery as 0 % and nothing else: 0 is a reading, the rest are empty.
        rebuilt.conditions = DeviceConditions(batteryPercent: 0)
        let plain = Self.sample(3)
        let samples = [disturbed, rebuilt, plain]

        #expect(try Self.column("build", samples) == ["base", "", ""])
        #expect(try Self.column("prelaunch_kind", samples) == ["prewarm", "", ""])
        #expect(try Self.column("prelaunch_source", samples) == ["device-log", "", ""])
        #expect(try Self.column("prelaunch_reason", samples) == ["DAS Prewarm launch", "", ""])
        #expect(try Self.column("closure_rebuilt", samples) == ["false", "true", "false"])
        #expect(try Self.column("set_aside", samples) == ["true", "false", "false"])
        #expect(try Self.column("battery_percent", samples) == ["87", "0", ""])
        #expect(try Self.column("charging", samples) == ["false", "", ""])
        #expect(try Self.column("temperature_c", samples) == ["31.5", "", ""])
        #expect(try Self.column("free_storage_bytes", samples) == ["31000000000", "", ""])
    }

    /// A program reading columns by position keeps reading the older columns where they were.
    @Test func newColumnsComeAfterTheOlderOnes() {
        let older =
            [
                "run_id", "device_udid", "device_name", "product_type", "os_version", "app_bundle_id", "app_version",
                "iteration", "launch_kind", "status",
            ] + Metric.allCases.map(\.rawValue) + ["premain_source", "started_at", "launcher"]
        #expect(Array(SamplesCSV.header.prefix(older.count)) == older)
        #expect(
            Array(SamplesCSV.header.dropFirst(older.count)) == [
                "build", "prelaunch_kind", "prelaunch_source", "prelaunch_reason", "closure_rebuilt", "set_aside",
                "battery_percent", "charging", "temperature_c", "free_storage_bytes", "first_frame_source",
                "stray_frame_ends",
            ])
        let row = CSVWriterTests.parse(SamplesCSV.csv([Self.sample(1)]).text)[1]
        #expect(row.count == SamplesCSV.header.count)
    }
}
