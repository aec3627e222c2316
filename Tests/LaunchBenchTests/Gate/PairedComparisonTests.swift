import Foundation
import TestSupport
import Testing

@testable import LaunchBench

/// An A/B run's launches judged pair by pair: what pairs, what each verdict says, and what an A/B folder reads as.
@Suite struct PairedComparisonTests {
    /// Cold samples of one build with `total_premain_ms` values, iteration by iteration.
    private static func build(_ values: [Double?], build: String, images: [String] = []) -> [Sample] {
        values.enumerated().map { index, value in
            var sample = GateSamples.make(
                iteration: index + 1, status: value == nil ? .crashed : .ok,
                metrics: value.map { [.totalPremainMs: $0] } ?? [:], bundleImages: images)
            sample.build = build
            return sample
        }
    }

    /// Pairs with a fixed ratio and a small alternating wobble, so the shift is known and the interval narrow.
    private static func values(_ count: Int, ratio: Double) -> (base: [Double], new: [Double]) {
        let base = (0..<count).map { 400 + Double($0 % 5) * 8 }
        let new = base.enumerated().map { $1 * ratio * ($0 % 2 == 0 ? 1.004 : 0.996) }
        return (base, new)
    }

    private static func manifest(pairs: Int, digests: (String, String) = ("a", "b")) -> RunManifest {
        var manifest = RunManifest(runID: "run", app: RunManifest.App(bundleID: "com.example.app"))
        manifest.builds = [
            RunManifest.Build(role: "new", path: "/builds/new/Sample.app", version: "1.0 (35)", digest: digests.0),
            RunManifest.Build(role: "base", path: "/builds/base/Sample.app", version: "1.0 (34)", digest: digests.1),
        ]
        manifest.pairedDesign = PairedSequentialVerdict(minimumPairs: 5, maxPairs: pairs)
        return manifest
    }

    private static func report(_ comparison: PairedComparison) -> GateReport {
        var report = GateReport()
        report.paired = comparison
        return report
    }

    @Test func pairsMeetAtTheirIterationAndFailedLaunchesLeaveNoPair() {
        let base = Self.build([400, 410, nil, 420], build: "base").map(LaunchPoint.init)
        let new = Self.build([440, nil, 430, 460], build: "new").map(LaunchPoint.init)
        let pairs = PairedLaunches(metric: .totalPremainMs, base: base, new: new.reversed())
        #expect(pairs.base == [400, 420])
        #expect(pairs.new == [440, 460])
        #expect(PairedLaunches.metrics([], base: base, new: new) == [.totalPremainMs])
    }

    @Test func aSlowerBuildIsARegressionAndTheLineNamesTheSmallestVisibleChange() throws {
        let (base, new) = Self.values(20, ratio: 1.10)
        let comparison = PairedComparison(
            new: GateLaunches(samples: Self.build(new, build: "new")),
            base: GateLaunches(samples: Self.build(base, build: "base")), manifest: Self.manifest(pairs: 20),
            settings: GateSettings())
        let entry = try #require(comparison.entries.first)
        #expect(comparison.entries.count == 1)
        #expect(entry.verdict == .regression)
        #expect(entry.pairs == 20)
        let shift = try #require(entry.shift?.shiftPercent)
        #expect((9...11).contains(shift), "\(shift)")
        #expect(entry.reason.hasPrefix("Slower after"))
        #expect(entry.reason.contains("the smallest change these pairs could show is ±"))
        let report = Self.report(comparison)
        #expect(report.outcome == .failed)
        #expect(report.headline.hasPrefix("Gate: FAILED — NEW slower than BASE in 1"))
        let text = GateTableReport.render(report)
        #expect(text.contains("A/B: NEW /builds/new/Sample.app 1.0 (35) against BASE /builds/base/Sample.app 1.0 (34)"))
        #expect(text.contains("smallest visible"))
        #expect(GateJSONReport.render(report, exitCode: 2).contains("\"smallest_visible_change_percent\""))
    }

    @Test func theSameBuildTwiceIsUnchangedAndSaidToBeAnAARun() throws {
        let (base, new) = Self.values(20, ratio: 1.0)
        let comparison = PairedComparison(
            new: GateLaunches(samples: Self.build(new, build: "new")),
            base: GateLaunches(samples: Self.build(base, build: "base")),
            manifest: Self.manifest(pairs: 20, digests: ("same", "same")), settings: GateSettings())
        #expect(comparison.entries.map(\.verdict) == [.unchanged])
        #expect(comparison.notes.contains(PairedComparison.sameBuildNote))
        #expect(Self.report(comparison).outcome == .passed)
    }

    @Test func aDeviceLostBeforeThePairsDecidedIsUndecided() throws {
        // 20 of 40 pairs, ±10 % apart: the look's level (O'Brien–Fleming, half the information) lets 20 pairs show
        // a change, but these are too noisy to settle.
        let base = [Double](repeating: 400, count: 20)
        let new = (0..<20).map { 408 * ($0 % 2 == 0 ? 1.1 : 0.9) }
        var manifest = Self.manifest(pairs: 40)
        manifest.deviceOutcomes = [RunManifest.DeviceOutcome(udid: "UDID-A", outcome: .lost)]
        let comparison = PairedComparison(
            new: GateLaunches(samples: Self.build(new, build: "new")),
            base: GateLaunches(samples: Self.build(base, build: "base")), manifest: manifest, settings: GateSettings())
        let entry = try #require(comparison.entries.first)
        #expect(entry.verdict == .insufficientData)
        #expect(entry.reason.hasPrefix("Undecided: the device's launches ended"))
        #expect(entry.reason.contains("the smallest change these pairs could show is ±"), "\(entry.reason)")
        #expect(entry.smallestVisiblePercent != nil)
        #expect(Self.report(comparison).outcome == .undecided)
        // Lost after 6: at that early look no 6 pairs can show anything, and the reason says so, with no figure.
        let early = PairedComparison(
            new: GateLaunches(samples: Self.build(Array(new.prefix(6)), build: "new")),
            base: GateLaunches(samples: Self.build(Array(base.prefix(6)), build: "base")), manifest: manifest,
            settings: GateSettings())
        let first = try #require(early.entries.first)
        #expect(first.verdict == .insufficientData && first.smallestVisiblePercent == nil)
        #expect(first.reason.contains("at this look 6 pairs could show no change at all"), "\(first.reason)")
    }

    @Test func imagesOneBuildLoadsAndTheOtherDoesNotAreNamed() {
        let comparison = PairedComparison(
            new: GateLaunches(
                samples: Self.build(
                    [400, 401, 402], build: "new", images: ["Frameworks/Analytics.framework/Analytics"])),
            base: GateLaunches(samples: Self.build([400, 401, 402], build: "base")), manifest: Self.manifest(pairs: 3),
            settings: GateSettings())
        #expect(
            comparison.notes.contains {
                $0.hasPrefix("NEW loads Frameworks/Analytics.framework/Analytics on Lab iPhone (UDID-A), BASE does not")
            })
    }

    @Test func anABFolderIsReadWithItsBaseBuildAndOldSamplesStillRead() throws {
        let (base, new) = Self.values(12, ratio: 1.0)
        let folder = try GateSamples.resultsFolder(Self.build(new, build: "new"))
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.manifest(pairs: 12).write(to: folder.appendingPathComponent("run.json"))
        let baseFolder = try GateSamples.resultsFolder(Self.build(base, build: "base"))
        try FileManager.default.moveItem(at: baseFolder, to: folder.appendingPathComponent("base"))
        let input = try GateInput.load(path: folder.path, role: .current)
        #expect(input.baseBuild?.launches.count == 12)
        let report = try GateCheck(settings: GateSettings()).report(current: input)
        #expect(report.paired?.entries.map(\.verdict) == [.unchanged])
        // A line written before A/B runs has no `build`: it reads as before.
        let old = try GateSamples.resultsFolder(GateSamples.cold([400, 401]))
        defer { try? FileManager.default.removeItem(at: old) }
        let oldInput = try GateInput.load(path: old.path, role: .current)
        #expect(oldInput.baseBuild == nil)
        let oldSamples = try ResultsFolder.loadSamples(old).samples
        #expect(oldSamples.allSatisfy { $0.build == nil })
    }
}

extension PairedComparisonTests {
    @Test func aHandEditedDesignIsBoundedWhenRead() throws {
        let json = #"{"runID": "r", "devices": [], "pairedDesign": {"minimumPairs": 9, "maxPairs": 3}}"#
        let manifest = try JSONCoding.decoder().decode(RunManifest.self, from: Data(json.utf8))
        #expect(manifest.pairedDesign == PairedSequentialVerdict(minimumPairs: 9, maxPairs: 9))
    }
}

/// Issue 44: fewer pairs than the signed-rank test can reject from are undecided, never a pass.
extension PairedComparisonTests {
    private static func compare(base: [Double?], new: [Double?], pairs: Int) throws -> PairedEntry {
        let comparison = PairedComparison(
            new: GateLaunches(samples: Self.build(new, build: "new")),
            base: GateLaunches(samples: Self.build(base, build: "base")), manifest: Self.manifest(pairs: pairs),
            settings: GateSettings())
        return try #require(comparison.entries.first)
    }

    @Test func fivePairsOfAMuchSlowerBuildAreUndecidedAndSixAreARegression() throws {
        let (base, new) = Self.values(6, ratio: 1.92)
        let five = try Self.compare(base: Array(base.prefix(5)), new: Array(new.prefix(5)), pairs: 5)
        #expect(five.verdict == .insufficientData, "\(five.reason)")
        #expect(five.smallestVisiblePercent == nil)
        #expect(
            five.reason.hasPrefix("Undecided: 5 measured pairs, and the signed-rank test needs 6"), "\(five.reason)")
        #expect(five.reason.contains("smallest p is 0.0625"), "\(five.reason)")
        #expect(five.reason.contains("raise --iterations"), "\(five.reason)")
        var report = GateReport()
        report.paired = PairedComparison(
            new: GateLaunches(samples: Self.build(Array(new.prefix(5)), build: "new")),
            base: GateLaunches(samples: Self.build(Array(base.prefix(5)), build: "base")),
            manifest: Self.manifest(pairs: 5), settings: GateSettings())
        #expect(report.outcome != .passed)
        let six = try Self.compare(base: base, new: new, pairs: 6)
        #expect(six.verdict == .regression, "\(six.reason)")
    }

    @Test func pairsLostToFailedBaseLaunchesAreUndecidedAndSaySo() throws {
        // Eight iterations, three of BASE's launches failed: five pairs left, +89 %.
        let (base, new) = Self.values(8, ratio: 1.89)
        let failed = base.enumerated().map { [1, 4, 6].contains($0) ? nil : Optional($1) }
        let entry = try Self.compare(base: failed, new: new.map(Optional.init), pairs: 8)
        #expect(entry.pairs == 5)
        #expect(entry.verdict == .insufficientData, "\(entry.reason)")
        #expect(entry.reason.contains("3 of 8 launches of this kind left no pair"), "\(entry.reason)")
    }

    @Test func aDesignNeverLooksBeforeTheTestCanReject() {
        #expect(PairedSequentialVerdict.fewestPairs(alpha: 0.05) == 6)
        #expect(PairedSequentialVerdict.fewestPairs(alpha: 0.01) == 8)
        let design = PairedSequentialVerdict(minimumPairs: 2, maxPairs: 5)
        #expect(design.minimumPairs == 6 && design.maxPairs == 6)
        // A design read from an older run.json (5…5) is raised the same way.
        let json = #"{"runID": "r", "devices": [], "pairedDesign": {"minimumPairs": 5, "maxPairs": 5}}"#
        let manifest = try? JSONCoding.decoder().decode(RunManifest.self, from: Data(json.utf8))
        #expect(manifest?.pairedDesign?.minimumPairs == 6)
        // The cap reached with five usable pairs (a sixth not positive) decides nothing.
        let decision = design.decide(
            base: [400, 400, 400, 400, 400, 0], new: [800, 800, 800, 800, 800, 800], thresholdPercent: 5, alpha: 0.05)
        #expect(decision == .tooFewPairs(pairs: 5, fewest: 6, alpha: 0.05))
        #expect(decision.verdict == .insufficientData)
    }
}
