import Foundation
import Testing

@testable import LaunchBench

/// The gate over the conditions run.json recorded: a hot phone against a cool baseline, or charging against
/// not, is `not comparable` unless `--compare-anyway`; smaller differences are only named.
@Suite struct ConditionComparisonTests {
    static func manifest(udid: String = "UDID-A", _ typical: DeviceConditions?) -> RunManifest {
        var outcome = RunManifest.DeviceOutcome(udid: udid)
        if let typical {
            var record = DeviceConditionsRecord()
            record.typical = typical
            record.readings = 10
            outcome.conditions = record
        }
        return RunManifest(devices: [], deviceOutcomes: [outcome])
    }

    static func report(_ baseline: RunManifest, _ current: RunManifest, anyway: Bool = false) throws -> GateReport {
        var settings = GateSettings()
        settings.compareAnyway = anyway
        func input(_ manifest: RunManifest, _ path: String) -> GateInput {
            let samples = NotComparableTests.samples(osVersion: "14.8", median: 300)
            return GateInput(
                path: path,
                folder: ResultsFolder(url: URL(fileURLWithPath: path), manifest: manifest, samples: samples),
                appBundleID: samples.first?.appBundleID, launches: GateLaunches(samples: samples),
                referenceLaunches: GateLaunches(samples: []))
        }
        return try GateCheck(baseline: input(baseline, "/base"), settings: settings).report(
            current: input(current, "/head"))
    }

    @Test func aHotPhoneAgainstACoolBaselineIsNotComparable() throws {
        let cool = Self.manifest(DeviceConditions(batteryPercent: 100, charging: true, temperatureC: 30))
        let hot = Self.manifest(DeviceConditions(batteryPercent: 90, charging: true, temperatureC: 42.4))
        let report = try Self.report(cool, hot)
        let entry = try #require(report.comparison?.entries.first)
        #expect(entry.verdict == .notComparable)
        #expect(entry.changes == ["temperature 30 °C → 42.4 °C"])
        #expect(entry.reason.hasPrefix("Not comparable: temperature 30 °C → 42.4 °C between the baseline and"))
        #expect(report.comparison?.notes.contains { $0.contains("battery 100 % → 90 %") } == true)

        let anyway = try Self.report(cool, hot, anyway: true)
        #expect(anyway.comparison?.entries.first?.verdict != .notComparable)
        #expect(
            anyway.comparison?.entries.first?.reason.contains("Compared anyway (--compare-anyway) across temperature")
                == true)
    }

    @Test func chargingOnOneSideOnlyIsNotComparableAndSmallDriftIsNamedOnly() throws {
        let base = Self.manifest(DeviceConditions(charging: true, temperatureC: 31))
        let unplugged = try Self.report(base, Self.manifest(DeviceConditions(charging: false, temperatureC: 31.4)))
        #expect(unplugged.comparison?.entries.first?.changes == ["charging yes → no"])

        let warmer = try Self.report(base, Self.manifest(DeviceConditions(charging: true, temperatureC: 35.5)))
        #expect(warmer.comparison?.entries.first?.verdict != .notComparable)
        #expect(warmer.comparison?.notes.contains { $0.contains("temperature 31 °C → 35.5 °C") } == true)
    }

    @Test func runsWithoutRecordedConditionsCompareAsBefore() throws {
        let report = try Self.report(Self.manifest(nil), Self.manifest(DeviceConditions(temperatureC: 44)))
        #expect(report.comparison?.entries.first?.changes == [])
        #expect(report.comparison?.entries.first?.verdict != .notComparable)
    }
}
