import Foundation
import Testing

@testable import LaunchBench

/// The gate compares like with like, metric by metric (issue 43, item 3): a metric the baseline measured and the
/// run did not, or one whose source changed (pre-main kdebug → none, first frame UIKit → markers, launcher
/// process control → debugserver), is `not comparable` naming the change; never a quiet fallback to another
/// metric. `--compare-anyway` judges what both measured and names what it left out.
@Suite struct LikeWithLikeTests {
    /// How one side measured: which values its launches have, and where they came from.
    struct Side {
        var premain: PremainSource? = .kdebug
        var firstFrame: FirstFrameSource? = .uikitAnchored
        var launcher: LaunchMethod? = .processControl
        var udid = "UDID-A"
        var productType = "iPhone15,4"
        var osVersion = "17.5"
        var firstFrameMs = 300.0
        /// Whether its launches have pre-main values.
        var measuresPremain = true

        /// The kdebug run of a phone whose session was lost under `--premain auto`: no pre-main values, source
        /// `none`, first frame from LaunchProbe's markers, launched through debugserver.
        static var lostSession: Side {
            Side(premain: .notMeasured, firstFrame: .markers, launcher: .debugserver, measuresPremain: false)
        }

        func samples() -> [Sample] {
            (1...10).map { i in
                var sample = Sample(
                    runID: "r", deviceUDID: udid, deviceName: "Phone", productType: productType, osVersion: osVersion,
                    appBundleID: "com.example.app", appVersion: "1.0", iteration: i, kind: .cold, status: .ok,
                    metrics: [.firstFrameMs: firstFrameMs + Double(i % 5)],
                    startedAt: Date(timeIntervalSince1970: Double(i)))
                if measuresPremain { sample.metrics[.totalPremainMs] = 120 + Double(i % 5) }
                sample.premainSource = premain
                sample.firstFrameSource = firstFrame
                sample.launcher = launcher
                return sample
            }
        }
    }

    static func report(_ baseline: Side, _ current: Side, anyway: Bool = false, metrics: [Metric] = []) throws
        -> GateReport
    {
        var settings = GateSettings(metrics: metrics)
        settings.compareAnyway = anyway
        return try NotComparableTests.report(baseline.samples(), current.samples(), settings: settings)
    }

    /// The case: a kdebug baseline against a run whose session was lost. Before, the gate judged
    /// first_frame_ms (markers, under a debugger) and passed with "1 unchanged".
    @Test func aKdebugBaselineAgainstARunWithoutItIsNotComparableNamingTheChange() throws {
        let report = try Self.report(Side(), .lostSession)
        let entry = try #require(report.comparison?.entries.first)
        #expect(report.comparison?.entries.count == 1)
        #expect(entry.metric == .totalPremainMs)
        #expect(entry.verdict == .notComparable)
        #expect(
            entry.changes == [
                "total_premain_ms measured in the baseline, not in this run (pre-main source kdebug → none, "
                    + "launcher processcontrol → debugserver)"
            ])
        #expect(entry.reason.hasPrefix("Not comparable: total_premain_ms measured in the baseline, not in this run"))
        #expect(report.outcome == .undecided)
        #expect(report.headline == "Gate: UNDECIDED — 1 not comparable")
        #expect(GateTableReport.render(report).contains("not comparable"))
    }

    /// A run written before `none` existed left `premain_source` empty: the missing metric still says it.
    @Test func aRunThatLeftThePremainSourceEmptyIsNotComparableEither() throws {
        var current = Side.lostSession
        current.premain = nil
        current.firstFrame = nil
        current.launcher = nil
        let entry = try #require(try Self.report(Side(), current).comparison?.entries.first)
        #expect(entry.verdict == .notComparable)
        #expect(entry.changes == ["total_premain_ms measured in the baseline, not in this run"])
    }

    /// `--compare-anyway` compares what can be: the first frame, which both measured, with every change named
    /// in its reason and a note saying which metric was left out.
    @Test func compareAnywayJudgesWhatBothMeasuredAndNamesWhatItLeftOut() throws {
        let report = try Self.report(Side(), .lostSession, anyway: true)
        let entry = try #require(report.comparison?.entries.first)
        #expect(report.comparison?.entries.count == 1)
        #expect(entry.metric == .firstFrameMs)
        #expect(entry.verdict == .unchanged)
        #expect(
            entry.reason.hasPrefix(
                "Compared anyway (--compare-anyway) across total_premain_ms measured in the baseline, not in this "
                    + "run (pre-main source kdebug → none, launcher processcontrol → debugserver), first frame "
                    + "source uikit-anchored → markers."), "\(entry.reason)")
        #expect(
            report.comparison?.notes.contains {
                $0.contains("total_premain_ms measured in the baseline, not in this run")
                    && $0.contains("compared anyway (--compare-anyway) on first_frame_ms")
            } == true)
        #expect(report.outcome == .passed)
    }

    @Test func aFirstFrameFromMarkersInsteadOfUIKitIsNotComparable() throws {
        var baseline = Side()
        baseline.measuresPremain = false
        var current = baseline
        current.firstFrame = .markers
        let entry = try #require(try Self.report(baseline, current).comparison?.entries.first)
        #expect(entry.metric == .firstFrameMs && entry.verdict == .notComparable)
        #expect(entry.changes == ["first frame source uikit-anchored → markers"])
        // An anchored first frame against an unanchored one (no BEGIN came) is a change of source too.
        current.firstFrame = .uikitUnanchored
        let unanchored = try #require(try Self.report(baseline, current).comparison?.entries.first)
        #expect(unanchored.changes == ["first frame source uikit-anchored → uikit-unanchored"])
    }

    /// The launcher counts for every metric: a debugger pauses dyld at its image notifier.
    @Test func anotherLauncherIsNotComparable() throws {
        var current = Side()
        current.launcher = .debugserver
        let entry = try #require(try Self.report(Side(), current).comparison?.entries.first)
        #expect(entry.metric == .totalPremainMs && entry.verdict == .notComparable)
        #expect(entry.changes == ["launcher processcontrol → debugserver"])
    }

    /// A metric asked for by name that one side lacks is not comparable, whichever side lacks it.
    @Test func aChosenMetricOneSideLacksIsNamed() throws {
        let lacking = try #require(
            try Self.report(Side(), .lostSession, metrics: [.totalPremainMs]).comparison?.entries.first)
        #expect(lacking.verdict == .notComparable)
        #expect(lacking.changes.first?.hasPrefix("total_premain_ms measured in the baseline, not in this run") == true)
        let gained = try #require(
            try Self.report(.lostSession, Side(), metrics: [.totalPremainMs]).comparison?.entries.first)
        #expect(gained.verdict == .notComparable)
        #expect(gained.changes.first?.hasPrefix("total_premain_ms measured in this run, not in the baseline") == true)
    }

    /// iOS 26 against 27 on another phone of the same model: not comparable, both versions named (before, the
    /// two phones were left unmatched and the gate only said the baseline's phone had no counterpart).
    @Test func anotherIOSVersionOnAnotherPhoneOfTheModelIsNotComparableNamingBoth() throws {
        var baseline = Side()
        baseline.osVersion = "26.1"
        var current = Side()
        current.osVersion = "27.0"
        current.udid = "UDID-B"
        let report = try Self.report(baseline, current)
        let entry = try #require(report.comparison?.entries.first)
        #expect(entry.verdict == .notComparable && entry.changes == ["iOS 26.1 → 27.0"])
        #expect(entry.matchedBy == .model)
        #expect(report.comparison?.notes.contains { $0.contains("the same model on another iOS version") } == true)
        #expect(report.outcome == .undecided)
    }

    /// Files written before `first_frame_source`: a launch kdebug timed had UIKit's first END after main (no
    /// BEGIN anchored it), any other LaunchProbe's marker.
    @Test func olderFilesGiveTheirFirstFrameSourceThroughTheirPremainSource() {
        var sample = Side().samples()[0]
        sample.firstFrameSource = nil
        #expect(MeasurementSources.firstFrame(of: sample) == .uikitUnanchored)
        sample.premainSource = .dyldStatistics
        #expect(MeasurementSources.firstFrame(of: sample) == .markers)
        sample.premainSource = nil
        #expect(MeasurementSources.firstFrame(of: sample) == .markers)
        sample.metrics[.firstFrameMs] = nil
        #expect(MeasurementSources.firstFrame(of: sample) == nil)
    }

    // MARK: - --against pairs

    /// One build's launches of `side`, marked `new` or `base`.
    static func build(_ side: Side, _ build: String) -> GateLaunches {
        GateLaunches(
            samples: side.samples().map {
                var sample = $0
                sample.build = build
                return sample
            })
    }

    static func paired(base: Side, new: Side, anyway: Bool = false) -> PairedComparison {
        var settings = GateSettings()
        settings.compareAnyway = anyway
        var manifest = RunManifest(runID: "run", app: RunManifest.App(bundleID: "com.example.app"))
        manifest.pairedDesign = PairedSequentialVerdict(minimumPairs: 5, maxPairs: 10)
        return PairedComparison(
            new: build(new, "new"), base: build(base, "base"), manifest: manifest, settings: settings)
    }

    /// BASE timed by kdebug, NEW without pre-main: before, the pairs fell back to first_frame_ms silently.
    @Test func anABRunWhoseNewBuildLacksAMetricIsNotComparable() throws {
        let comparison = Self.paired(base: Side(), new: .lostSession)
        let entry = try #require(comparison.entries.first)
        #expect(comparison.entries.count == 1)
        #expect(entry.metric == .totalPremainMs && entry.verdict == .notComparable)
        #expect(entry.reason.hasPrefix("Not comparable: total_premain_ms measured in BASE, not in NEW"))
        var report = GateReport()
        report.paired = comparison
        #expect(report.outcome == .undecided)
        let anyway = Self.paired(base: Side(), new: .lostSession, anyway: true)
        let judged = try #require(anyway.entries.first)
        #expect(judged.metric == .firstFrameMs && judged.verdict != .notComparable)
        #expect(judged.reason.hasPrefix("Compared anyway (--compare-anyway) across total_premain_ms measured in BASE"))
        #expect(anyway.notes.contains { $0.contains("compared anyway (--compare-anyway) on first_frame_ms") })
    }

    /// NEW prints LaunchProbe's markers where BASE's first frame was UIKit's: not the same number.
    @Test func anABRunWhoseFirstFrameSourcesDifferIsNotComparable() throws {
        var base = Side()
        base.measuresPremain = false
        var new = base
        new.firstFrame = .markers
        let entry = try #require(Self.paired(base: base, new: new).entries.first)
        #expect(entry.verdict == .notComparable)
        #expect(entry.reason.contains("first frame source uikit-anchored → markers between BASE and NEW"))
    }

    // MARK: - trend series

    /// A results folder of `side`'s launches on `day`.
    static func folder(_ root: URL, _ label: String, _ side: Side, day: Int) throws -> String {
        let url = root.appendingPathComponent(label)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let lines = try side.samples().map { sample -> String in
            var sample = sample
            sample.runID = label
            sample.startedAt = Date(timeIntervalSince1970: Double(day * 86_400 + sample.iteration))
            return String(decoding: try JSONCoding.encoder().encode(sample), as: UTF8.self)
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url.appendingPathComponent("samples.jsonl"))
        return url.path
    }

    /// A run whose session was lost: the pre-main series gets no point there and a note says so; the first
    /// frame (now LaunchProbe's, under a debugger) starts a new series instead of continuing UIKit's.
    @Test func aTrendRunWithoutPremainSaysSoAndBreaksTheFirstFrameSeries() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("like-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let paths = [
            try Self.folder(root, "r1", Side(), day: 1), try Self.folder(root, "r2", Side(), day: 2),
            try Self.folder(root, "r3", .lostSession, day: 3),
        ]
        let trend = Trend(paths: paths)
        #expect(trend.series.filter { $0.metric == .totalPremainMs }.map(\.points.count) == [2])
        #expect(trend.series.filter { $0.metric == .firstFrameMs }.map(\.points.count) == [2, 1])
        #expect(
            trend.folderNotes.contains {
                $0.contains("total_premain_ms not measured in \(paths[2]) (pre-main source none")
            }, "\(trend.folderNotes)")
        #expect(
            trend.folderNotes.contains {
                $0.contains(
                    "pre-main source kdebug → none, launcher processcontrol → debugserver, first frame source "
                        + "uikit-anchored → markers in \(paths[2]): a new series starts there")
            }, "\(trend.folderNotes)")
    }
}
