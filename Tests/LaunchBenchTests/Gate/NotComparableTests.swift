import Foundation
import Testing

@testable import LaunchBench

/// A baseline measured on another model or iOS version under the same UDID, or of another app, gets no clean
/// pass: each entry is `not comparable` (exit 3) with the change named, unless `--compare-anyway` asks for the
/// comparison, which the reports then name.
@Suite struct NotComparableTests {
    static func samples(
        udid: String = "UDID-A", productType: String = "iPhone12,1", osVersion: String, app: String = "com.example.app",
        median: Double, premainSource: PremainSource? = nil
    ) -> [Sample] {
        (1...10).map { i in
            var sample = Sample(
                runID: "r", deviceUDID: udid, deviceName: "Phone", productType: productType, osVersion: osVersion,
                appBundleID: app, appVersion: "1.0", iteration: i, kind: .cold, status: .ok,
                metrics: [.firstFrameMs: median + Double(i % 5)], startedAt: Date(timeIntervalSince1970: Double(i)))
            if premainSource != nil { sample.metrics[.totalPremainMs] = median / 2 + Double(i % 5) }
            sample.premainSource = premainSource
            return sample
        }
    }

    static func report(_ baseline: [Sample], _ current: [Sample], anyway: Bool = false) throws -> GateReport {
        var settings = GateSettings()
        settings.compareAnyway = anyway
        return try report(baseline, current, settings: settings)
    }

    static func report(_ baseline: [Sample], _ current: [Sample], settings: GateSettings) throws -> GateReport {
        func input(_ samples: [Sample], _ path: String) -> GateInput {
            GateInput(
                path: path, folder: ResultsFolder(url: URL(fileURLWithPath: path), manifest: nil, samples: samples),
                appBundleID: samples.first?.appBundleID, launches: GateLaunches(samples: samples),
                referenceLaunches: GateLaunches(samples: []))
        }
        return try GateCheck(baseline: input(baseline, "/base"), settings: settings).report(
            current: input(current, "/head"))
    }

    @Test func anIOSUpdateUnderTheSameUDIDIsNotComparable() throws {
        let report = try Self.report(
            Self.samples(osVersion: "14.8", median: 300), Self.samples(osVersion: "15.0", median: 300))
        let entry = try #require(report.comparison?.entries.first)
        #expect(entry.verdict == .notComparable)
        #expect(entry.changes == ["iOS 14.8 → 15.0"])
        #expect(entry.reason.contains("Not comparable: iOS 14.8 → 15.0 between the baseline and this run"))
        #expect(report.outcome == .undecided)
        #expect(report.headline.contains("UNDECIDED"))
        let table = GateTableReport.render(report)
        #expect(table.contains("not comparable") && table.contains("--compare-anyway"))
        #expect(GateJUnitReport.render(report).contains("type=\"not-comparable\""))
        #expect(GateJSONReport.render(report, exitCode: 3).contains("\"not-comparable\""))
        #expect(GateMarkdownReport.render(report).contains("not comparable"))
    }

    @Test func anotherModelUnderTheSameUDIDIsNotComparableEvenWhenFaster() throws {
        let report = try Self.report(
            Self.samples(osVersion: "14.8", median: 300),
            Self.samples(productType: "iPhone14,5", osVersion: "14.8", median: 200))
        let entry = try #require(report.comparison?.entries.first)
        #expect(entry.verdict == .notComparable)
        #expect(entry.changes == ["model iPhone12,1 → iPhone14,5"])
    }

    @Test func anotherAppsBaselineIsNotComparable() throws {
        let report = try Self.report(
            Self.samples(osVersion: "14.8", app: "com.other", median: 300), Self.samples(osVersion: "14.8", median: 300)
        )
        let entry = try #require(report.comparison?.entries.first)
        #expect(entry.verdict == .notComparable)
        #expect(entry.changes == ["app com.other → com.example.app"])
        #expect(report.notes.contains { $0.contains("not comparable (pass --compare-anyway") })
        #expect(report.outcome == .undecided)
    }

    @Test func compareAnywayJudgesAndNamesTheChange() throws {
        let report = try Self.report(
            Self.samples(osVersion: "14.8", median: 300), Self.samples(osVersion: "15.0", median: 400), anyway: true)
        let entry = try #require(report.comparison?.entries.first)
        #expect(entry.verdict == .regression)
        #expect(entry.reason.hasPrefix("Compared anyway (--compare-anyway) across iOS 14.8 → 15.0."))
        #expect(GateTableReport.render(report).contains("Compared anyway (--compare-anyway) across iOS 14.8 → 15.0"))
        #expect(report.outcome == .failed)
    }

    /// A `dyld-statistics` baseline against a `kdebug` run: kdebug's total includes process creation, so the
    /// same build reads slower (or, with a faster build, the same): no pass, no regression across it.
    @Test func anotherPremainSourceIsNotComparableInEveryFormat() throws {
        let report = try Self.report(
            Self.samples(osVersion: "14.8", median: 300, premainSource: .dyldStatistics),
            Self.samples(osVersion: "14.8", median: 300, premainSource: .kdebug))
        let entry = try #require(report.comparison?.entries.first)
        #expect(entry.verdict == .notComparable)
        #expect(entry.changes == ["pre-main source dyld-statistics → kdebug"])
        #expect(report.outcome == .undecided)
        let named = "Not comparable: pre-main source dyld-statistics → kdebug between the baseline and this run"
        #expect(GateTableReport.render(report).contains(named))
        #expect(GateMarkdownReport.render(report).contains("pre-main source dyld-statistics → kdebug"))
        #expect(GateJUnitReport.render(report).contains(named))
        #expect(GateJSONReport.render(report, exitCode: 3).contains(named))
    }

    @Test func compareAnywayJudgesAcrossAPremainSourceChangeAndNamesIt() throws {
        let report = try Self.report(
            Self.samples(osVersion: "14.8", median: 300, premainSource: .dyldStatistics),
            Self.samples(osVersion: "14.8", median: 300, premainSource: .kdebug), anyway: true)
        let entry = try #require(report.comparison?.entries.first)
        #expect(entry.verdict == .unchanged)
        #expect(
            entry.reason.hasPrefix(
                "Compared anyway (--compare-anyway) across pre-main source dyld-statistics → kdebug."))
    }

    /// A side that does not say where its pre-main phases came from (written before `premain_source`) is no change.
    @Test func anUnknownPremainSourceIsNoChange() throws {
        var old = Self.samples(osVersion: "14.8", median: 300, premainSource: .kdebug)
        for index in old.indices { old[index].premainSource = nil }
        let report = try Self.report(old, Self.samples(osVersion: "14.8", median: 300, premainSource: .kdebug))
        let entry = try #require(report.comparison?.entries.first)
        #expect(entry.changes.isEmpty && entry.verdict == .unchanged)
    }

    @Test func theSameDeviceAndAppCompareAsBefore() throws {
        let report = try Self.report(
            Self.samples(osVersion: "14.8", median: 300), Self.samples(osVersion: "14.8", median: 300))
        let entry = try #require(report.comparison?.entries.first)
        #expect(entry.verdict == .unchanged && entry.changes.isEmpty)
        #expect(report.outcome == .passed)
    }
}
