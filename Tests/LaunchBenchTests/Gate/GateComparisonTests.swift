import Foundation
import TestSupport
import Testing

@testable import LaunchBench

@Suite struct GateComparisonTests {
    /// A/A: baseline and current from the same profile (same noise), 400 seeds, 20 cold launches each.
    /// The gate may call at most 5 % of them regressions; and the test itself must be calibrated:
    /// under the null a two-sided test at 0.05 rejects in 5 % of cases, so of 400 pairs
    /// Binomial(400, 0.05) (mean 20, sd 4.4) reject — between 6 and 36 with probability > 99.99 %.
    @Test func aaRunsRarelyRegressAndTheTestIsCalibrated() {
        let model = EmulatedTimingModel()
        var regressions = 0
        var significant = 0
        for seed in 0..<400 {
            let baseline = GateSamples.cold(model.totals(count: 20, seed: UInt64(seed) * 2 + 1))
            let current = GateSamples.cold(model.totals(count: 20, seed: UInt64(seed) * 2 + 2))
            let comparison = GateComparison(baseline: baseline, current: current)
            let entry = comparison.entries[0]
            if entry.verdict == .regression { regressions += 1 }
            if (entry.test?.pValue ?? 1) < 0.05 { significant += 1 }
        }
        print("gate A/A: \(regressions)/400 regression verdicts, \(significant)/400 with p < 0.05")
        #expect(regressions <= 20, "A/A regression rate \(regressions)/400")
        #expect((6...36).contains(significant), "A/A rejection rate at 0.05: \(significant)/400")
    }

    /// Power: a profile 10 % slower, 20 iterations, 5 % noise, must be detected in at least 90 % of
    /// 400 seeds. (Expected ≈ 100 %: the Hodges–Lehmann shift's sd is ≈ 1 % of the median here.)
    @Test func tenPercentSlowerIsDetected() {
        let model = EmulatedTimingModel()
        let slower = model.slower(by: 0.10)
        var detected = 0
        for seed in 0..<400 {
            let baseline = GateSamples.cold(model.totals(count: 20, seed: UInt64(seed) * 2 + 10_001))
            let current = GateSamples.cold(slower.totals(count: 20, seed: UInt64(seed) * 2 + 10_002))
            if GateComparison(baseline: baseline, current: current).entries[0].verdict == .regression { detected += 1 }
        }
        print("gate power (10 % slower, n = 20, 5 % noise): \(detected)/400 regression verdicts")
        #expect(detected >= 360, "power \(detected)/400")
    }

    @Test func aFasterBuildIsAnImprovementAndPasses() {
        let model = EmulatedTimingModel()
        let baseline = GateSamples.cold(model.totals(count: 20, seed: 5))
        let current = GateSamples.cold(model.slower(by: -0.15).totals(count: 20, seed: 6))
        let comparison = GateComparison(baseline: baseline, current: current)
        #expect(comparison.entries[0].verdict == .improvement)
        #expect(GateReport(comparison: comparison).outcome == .passed)
    }

    /// Wide spread, no significant change: unchanged, and the entry says (as a flag, not only in words) that
    /// more launches would tell; the table lists it under the comparison.
    @Test func anOpenUnchangedVerdictIsFlaggedAndListed() throws {
        let baseline = GateSamples.cold([400, 520, 380, 610, 450, 390, 560, 420])
        let current = GateSamples.cold([430, 600, 390, 580, 500, 410, 590, 470])
        let comparison = GateComparison(baseline: baseline, current: current)
        let entry = try #require(comparison.entries.first)
        #expect(entry.verdict == .unchanged)
        #expect(entry.moreLaunchesWouldTell)
        #expect(entry.reason.contains("launches per side would tell."))
        #expect(GateTableReport.render(GateReport(comparison: comparison)).contains(entry.reason))

        let settled = GateComparison(
            baseline: GateSamples.cold((0..<20).map { 400 + Double($0 % 5) }),
            current: GateSamples.cold((0..<20).map { 401 + Double($0 % 5) }))
        #expect(settled.entries.first?.moreLaunchesWouldTell == false)
    }

    @Test func tooFewLaunchesIsInsufficientDataAndSaysHowMany() throws {
        let comparison = GateComparison(
            baseline: GateSamples.cold([400, 410, 405]), current: GateSamples.cold([450, 460, 455]))
        let entry = try #require(comparison.entries.first)
        #expect(entry.verdict == .insufficientData)
        #expect(entry.reason.contains("Only 3 measured launches"))
        let needed = try #require(entry.launchesNeeded)
        #expect(needed >= 5)
        #expect(entry.reason.contains("--iterations \(needed)"))
        #expect(GateReport(comparison: comparison).outcome == .undecided)
        #expect(GateReport(comparison: comparison).outcome == .undecided)
    }

    @Test func noisyDataNeedsMoreLaunchesThanQuietData() throws {
        let quiet = EmulatedTimingModel(noise: 0.02).totals(count: 10, seed: 1)
        let noisy = EmulatedTimingModel(noise: 0.30).totals(count: 10, seed: 2)
        let a = try #require(
            LaunchesNeeded.estimate(baseline: quiet, current: quiet, thresholdPercent: 5, alpha: 0.05, minimum: 5))
        let b = try #require(
            LaunchesNeeded.estimate(baseline: noisy, current: noisy, thresholdPercent: 5, alpha: 0.05, minimum: 5))
        #expect(a == 5)
        #expect(b > 15)
    }

    @Test func mostlyFailedLaunchesCannotBeJudged() throws {
        var current = GateSamples.cold([400, 401, 402, 403, 404, 405])
        for i in 0..<7 { current.append(GateSamples.make(iteration: 10 + i, status: .timeout)) }
        let comparison = GateComparison(baseline: GateSamples.cold((0..<10).map { 400 + Double($0) }), current: current)
        let entry = try #require(comparison.entries.first)
        #expect(entry.verdict == .insufficientData)
        #expect(entry.reason.contains("Too many launches failed"))
        #expect(entry.current.failures == 7)
    }

    /// UDID first, then model and iOS, then model alone (another iOS version: paired to be named not
    /// comparable); another model is never paired.
    @Test func devicesMatchByUDIDThenByModelAndOSThenByModel() {
        let b = [
            DeviceIdentity(udid: "A", name: "a", productType: "iPhone12,1", osVersion: "14.8"),
            DeviceIdentity(udid: "B", name: "b", productType: "iPhone10,1", osVersion: "13.7"),
            DeviceIdentity(udid: "C", name: "c", productType: "iPhone13,2", osVersion: "16.1"),
            DeviceIdentity(udid: "D", name: "d", productType: "iPhone8,1", osVersion: "12.5.7"),
        ]
        let c = [
            DeviceIdentity(udid: "X", name: "x", productType: "iPhone10,1", osVersion: "13.7"),
            DeviceIdentity(udid: "A", name: "a", productType: "iPhone12,1", osVersion: "14.8"),
            DeviceIdentity(udid: "Y", name: "y", productType: "iPhone13,2", osVersion: "16.2"),
        ]
        let result = DeviceMatching.match(baseline: b, current: c)
        #expect(
            result.pairs.map { [$0.current.udid, $0.baseline.udid, $0.basis.rawValue] } == [
                ["X", "B", "model-and-os"], ["A", "A", "udid"], ["Y", "C", "model"],
            ])
        #expect(result.unmatchedBaseline.map(\.udid) == ["D"])
        #expect(result.unmatchedCurrent.isEmpty)
    }

    @Test func aSwappedDeviceIsComparedAndNoted() throws {
        let values = (0..<10).map { 400 + Double($0) }
        let comparison = GateComparison(
            baseline: GateSamples.cold(values, udid: "OLD"), current: GateSamples.cold(values, udid: "NEW"))
        let entry = try #require(comparison.entries.first)
        #expect(entry.matchedBy == .modelAndOS)
        #expect(entry.baselineDevice.udid == "OLD")
        #expect(comparison.notes.contains { $0.contains("same model and iOS 14.8, another phone") })
        // Another iOS version is paired only to be named: not comparable, the gate cannot decide.
        let other = GateComparison(
            baseline: GateSamples.cold(values, udid: "OLD"), current: GateSamples.cold(values, udid: "NEW", os: "15.0"))
        #expect(other.entries.map(\.verdict) == [.notComparable])
        #expect(other.entries.first?.changes == ["iOS 14.8 → 15.0"])
        #expect(GateReport(comparison: other).outcome == .undecided)
    }

    @Test func defaultMetricFallsBackFromPreMainToFirstFrameToWall() {
        func samples(_ metrics: [Metric: Double], count: Int = 6) -> [Sample] {
            (1...count).map { GateSamples.make(iteration: $0, metrics: metrics.mapValues { $0 + Double(count) }) }
        }
        let premain = GateComparison(
            baseline: samples([.totalPremainMs: 400, .firstFrameMs: 700]),
            current: samples([.totalPremainMs: 400, .firstFrameMs: 700]))
        #expect(premain.entries.map(\.metric) == [.totalPremainMs])
        let marker = GateComparison(
            baseline: samples([.firstFrameMs: 700, .wallMs: 900]), current: samples([.firstFrameMs: 700, .wallMs: 900]))
        #expect(marker.entries.map(\.metric) == [.firstFrameMs])
        let wall = GateComparison(baseline: samples([.wallMs: 900]), current: samples([.wallMs: 900]))
        #expect(wall.entries.map(\.metric) == [.wallMs])
        let chosen = GateComparison(
            baseline: samples([.wallMs: 900, .mainMs: 300]), current: samples([.wallMs: 900, .mainMs: 300]),
            settings: GateSettings(metrics: [.mainMs, .wallMs]))
        #expect(chosen.entries.map(\.metric) == [.mainMs, .wallMs])
    }

    @Test func coldAndWarmAreJudgedSeparately() {
        let model = EmulatedTimingModel()
        var baseline = GateSamples.cold(model.totals(count: 12, seed: 1))
        var current = GateSamples.cold(model.totals(count: 12, seed: 2))
        baseline += model.totals(count: 12, seed: 3).enumerated().map {
            GateSamples.make(kind: .warm, iteration: $0 + 1, metrics: [.totalPremainMs: $1 / 3])
        }
        current += model.slower(by: 0.3).totals(count: 12, seed: 4).enumerated().map {
            GateSamples.make(kind: .warm, iteration: $0 + 1, metrics: [.totalPremainMs: $1 / 3])
        }
        let comparison = GateComparison(baseline: baseline, current: current)
        #expect(comparison.entries.map(\.kind) == [.cold, .warm])
        #expect(comparison.entries.map(\.verdict) == [.unchanged, .regression])
        let report = GateReport(comparison: comparison)
        #expect(report.outcome == .failed)
        #expect(report.headline == "Gate: FAILED — 1 regression, 1 unchanged")
    }

    @Test func significantButSmallChangesStayUnchanged() throws {
        // 2 % slower with almost no noise: significant, but under the 5 % threshold.
        let baseline = GateSamples.cold((0..<20).map { 400 + Double($0) * 0.1 })
        let current = GateSamples.cold((0..<20).map { 408 + Double($0) * 0.1 })
        let entry = try #require(GateComparison(baseline: baseline, current: current).entries.first)
        #expect(try #require(entry.test).pValue < 0.001)
        #expect(entry.verdict == .unchanged)
        #expect(entry.reason.contains("within the threshold"))
        let strict = try #require(
            GateComparison(baseline: baseline, current: current, settings: GateSettings(thresholdPercent: 1)).entries
                .first)
        #expect(strict.verdict == .regression)
    }
}
