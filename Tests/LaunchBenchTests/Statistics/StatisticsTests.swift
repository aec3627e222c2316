import Foundation
import LaunchBench
import Testing

@Suite struct StatisticsTests {
    private func close(_ a: Double?, _ b: Double, tolerance: Double = 1e-9) -> Bool {
        guard let a else { return false }
        return abs(a - b) <= tolerance * Swift.max(1, abs(b))
    }

    @Test func handCheckedSmallSample() {
        // 1 2 3 4: h = 3p → p25 = 1 + 0.75·1, median = 2.5, p75 = 3.25, p90 = 3 + 0.7·1.
        let s = MetricStatistics(values: [4, 1, 3, 2], failures: 0)
        #expect(s.n == 4)
        #expect(s.min == 1 && s.max == 4)
        #expect(close(s.p25, 1.75) && close(s.median, 2.5) && close(s.p75, 3.25) && close(s.p90, 3.7))
        #expect(close(s.mean, 2.5))
        // Σ(x − 2.5)² = 5, / (n − 1) = 5/3.
        #expect(close(s.stddev, (5.0 / 3).squareRoot()))
        #expect(close(s.cvPercent, 100 * (5.0 / 3).squareRoot() / 2.5))
        #expect(s.ci95 == nil, "no 95% order-statistics interval exists for n = 4")
    }

    @Test func oddCountMedianIsTheMiddleValue() {
        let s = MetricStatistics(values: [9, 1, 5], failures: 0)
        #expect(s.median == 5)
        #expect(close(s.p25, 3) && close(s.p75, 7) && close(s.p90, 8.2))
    }

    /// Reference values computed independently with numpy 1.x on this machine:
    /// `np.percentile(x, q)` (linear, the default), `x.mean()`, `x.std(ddof=1)`; the CI ranks with
    /// exact binomial sums (`fractions.Fraction`, `math.comb`).
    @Test func matchesNumpyOnASkewedLaunchSample() throws {
        let values = [
            412.31, 398.02, 455.7, 401.11, 399.95, 620.4, 405.5, 410.0, 403.33, 407.89, 399.95, 415.2, 409.87, 530.12,
            402.6, 404.44, 411.9, 398.5, 406.75, 401.01, 444.4, 397.2, 408.8,
        ]
        let s = MetricStatistics(values: values, failures: 2)
        #expect(s.n == 23 && s.failures == 2)
        #expect(s.min == 397.2 && s.max == 620.4)
        #expect(close(s.p25, 401.06))
        #expect(close(s.median, 406.75))
        #expect(close(s.p75, 412.105))
        #expect(close(s.p90, 453.44))
        #expect(close(s.mean, 423.69347826086954))
        #expect(close(s.stddev, 51.637020335898164))
        #expect(close(s.cvPercent, 12.18735311854507))
        let ci = try #require(s.ci95)
        #expect(ci.lowerRank == 7 && ci.upperRank == 17)
        #expect(ci.low == 401.11 && ci.high == 411.9)
        #expect(close(ci.coverage, 0.9653103351593018))
    }

    @Test func matchesNumpyOnSmallValuesWithTies() throws {
        let s = MetricStatistics(values: [0.1, 0.2, 0.3, 0.7, 1.1, 2.9, 3.0, 3.0, 12.5, 0.25], failures: 0)
        #expect(close(s.p25, 0.2625))
        #expect(close(s.median, 0.9))
        #expect(close(s.p75, 2.975))
        #expect(close(s.p90, 3.9499999999999966))
        #expect(close(s.mean, 2.4050000000000002))
        #expect(close(s.stddev, 3.752365920322803))
        #expect(close(s.cvPercent, 156.02353099055313))
        let ci = try #require(s.ci95)
        #expect(ci.low == 0.2 && ci.high == 3.0 && ci.lowerRank == 2 && ci.upperRank == 9)
        #expect(close(ci.coverage, 0.978515625))
    }

    @Test(arguments: [
        (6, 1, 0.96875), (7, 1, 0.984375), (9, 2, 0.9609375), (10, 2, 0.978515625), (15, 4, 0.96484375),
        (20, 6, 0.9586105346679688), (30, 10, 0.9572260547429323), (100, 40, 0.9647997997822951),
        (1000, 469, 0.9537088026395019),
    ])
    func medianIntervalRanksMatchExactBinomialSums(n: Int, rank: Int, coverage: Double) throws {
        let result = try #require(MedianConfidenceInterval.ranks(count: n))
        #expect(result.lowerRank == rank)
        #expect(close(result.coverage, coverage))
    }

    @Test(arguments: 0...5)
    func noNinetyFivePercentIntervalBelowSixValues(n: Int) {
        // [min, max] covers 1 − 2·0.5ⁿ: 93.75 % at n = 5, short of 95 %.
        #expect(MedianConfidenceInterval.ranks(count: n) == nil)
        #expect(MetricStatistics(values: (0..<n).map(Double.init), failures: 0).ci95 == nil)
    }

    @Test func emptySampleHasNoNumbersNotZeros() {
        let s = MetricStatistics(values: [], failures: 3)
        #expect(s.n == 0 && s.failures == 3)
        for statistic in Statistic.allCases { #expect(s.value(of: statistic) == nil) }
    }

    @Test func singleValueHasNoSpread() {
        let s = MetricStatistics(values: [42.5], failures: 0)
        #expect(s.min == 42.5 && s.median == 42.5 && s.p90 == 42.5 && s.mean == 42.5)
        #expect(s.stddev == nil && s.cvPercent == nil && s.ci95 == nil)
    }

    @Test func percentileEndsAreMinAndMax() {
        let sorted = [3.0, 5, 8, 13]
        #expect(Percentile.of(sorted: sorted, fraction: 0) == 3)
        #expect(Percentile.of(sorted: sorted, fraction: 1) == 13)
        #expect(Percentile.of(sorted: [7, 7, 7], fraction: 0.37) == 7)
    }

    @Test func stddevIsStableForLargeOffsets() {
        // A naive Σx² − (Σx)²/n loses every digit here.
        let s = MetricStatistics(values: [1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16], failures: 0)
        #expect(close(s.stddev, 30.0.squareRoot(), tolerance: 1e-9))
    }

    @Test func failedAndUnmeasuredLaunchesNeverBecomeNumbers() throws {
        func sample(_ i: Int, _ kind: LaunchKind, _ status: SampleStatus, _ metrics: [Metric: Double]) -> Sample {
            Sample(
                runID: "r", deviceUDID: "U1", deviceName: "A", productType: "iPhone12,1", osVersion: "14.8",
                appBundleID: "x", appVersion: "1", iteration: i, kind: kind, status: status, metrics: metrics,
                startedAt: Date(timeIntervalSince1970: Double(i)))
        }
        let samples = [
            sample(1, .cold, .ok, [.totalPremainMs: 400, .objcSetupMs: 20]),
            sample(2, .cold, .ok, [.totalPremainMs: 420]),  // objc setup not measured: not a 0
            sample(3, .cold, .timeout, [.wallMs: 30_000]),  // failed: counted, never a number
            sample(4, .cold, .noMetrics, [.wallMs: 900]),  // ran, printed nothing: neither
            sample(1, .warm, .crashed, [:]),
        ]
        let summary = RunSummary(samples: samples)
        #expect(summary.metrics == [.totalPremainMs, .objcSetupMs, .wallMs])
        let device = try #require(summary.devices.first)
        let cold = try #require(device.kind(.cold))
        #expect(cold.launches == 4 && cold.failures == 1 && cold.withoutMetrics == 1)
        #expect(cold.metrics[.totalPremainMs]?.n == 2)
        #expect(cold.metrics[.totalPremainMs]?.median == 410)
        #expect(cold.metrics[.totalPremainMs]?.failures == 1)
        #expect(cold.metrics[.objcSetupMs]?.n == 1)
        #expect(cold.metrics[.objcSetupMs]?.mean == 20)
        #expect(
            cold.metrics[.wallMs]?.n == 1 && cold.metrics[.wallMs]?.max == 900,
            "the timeout's 30 s wall time must not count")
        let warm = try #require(device.kind(.warm))
        #expect(warm.failures == 1 && warm.metrics[.totalPremainMs]?.n == 0)
        #expect(warm.failuresByStatus == [.crashed: 1])
        #expect(summary.entries.count == 6)
    }

    @Test func devicesFollowTheGivenOrderThenFirstAppearance() {
        func sample(_ udid: String) -> Sample {
            Sample(
                runID: "r", deviceUDID: udid, deviceName: udid, productType: "p", osVersion: "14.8", appBundleID: "x",
                appVersion: "1", iteration: 1, kind: .cold, status: .ok, metrics: [.wallMs: 1], startedAt: Date())
        }
        let samples = ["C", "A", "B", "C", "D"].map(sample)
        let summary = RunSummary(samples: samples, deviceOrder: ["B", "X", "A"], remarks: ["A": ["note about A"]])
        #expect(summary.devices.map(\.device.udid) == ["B", "A", "C", "D"])
        #expect(summary.devices[1].remarks == ["note about A"])
        #expect(summary.devices.first { $0.device.udid == "C" }?.kind(.cold)?.launches == 2)
    }

    @Test func phaseBreakdownUsesPerLaunchDifferences() throws {
        func sample(_ m: [Metric: Double]) -> Sample {
            Sample(
                runID: "r", deviceUDID: "U", deviceName: "A", productType: "p", osVersion: "16.0", appBundleID: "x",
                appVersion: "1", iteration: 1, kind: .cold, status: .ok, metrics: m, startedAt: Date())
        }
        // iOS 15+: markers only, so the whole start → main stretch is one phase.
        let breakdown = PhaseBreakdown(
            points: [
                sample([.mainMs: 100, .didFinishLaunchingMs: 250, .firstFrameMs: 300]),
                sample([.mainMs: 120, .didFinishLaunchingMs: 260, .firstFrameMs: 330]),
                sample([.mainMs: 110]),
            ].map(LaunchPoint.init))
        #expect(
            breakdown.phases.map(\.name) == [
                "pre-main (start → main)", "main → didFinishLaunching", "didFinishLaunching → first frame",
            ])
        #expect(breakdown.phases.map(\.medianMs) == [110, 145, 60])
        #expect(breakdown.phases.map(\.n) == [3, 2, 2])

        // With dyld's phases, the marker stretch before main is only what dyld did not itemise.
        let itemised = PhaseBreakdown(
            points: [
                LaunchPoint(
                    sample([
                        .dylibLoadingMs: 50, .rebaseBindingMs: 10, .objcSetupMs: 5, .initializerMs: 25,
                        .totalPremainMs: 90, .mainMs: 104,
                    ]))
            ])
        #expect(
            itemised.phases.map(\.name) == [
                "dylib loading", "rebase/binding", "ObjC setup", "initializers", "other pre-main (not itemised)",
            ])
        #expect(itemised.phases.last?.medianMs == 14)
        #expect(itemised.totalMs == 104)
    }
}

@Suite struct LaunchPointTests {
    /// The point reads back exactly what the sample measured, and nothing for what it did not.
    @Test func keepsEveryMeasuredValueAndNothingElse() {
        for (index, metric) in Metric.allCases.enumerated() {
            let sample = Sample(
                runID: "r", deviceUDID: "U", deviceName: "A", productType: "p", osVersion: "16.0", appBundleID: "x",
                appVersion: "1", iteration: 7, kind: .warm, launchIndex: 2, status: .ok,
                metrics: [metric: Double(index) + 0.25], startedAt: Date())
            let point = LaunchPoint(sample)
            #expect(point[metric] == Double(index) + 0.25)
            #expect(Metric.allCases.filter { point[$0] != nil } == [metric])
            #expect(point.iteration == 7 && point.launchIndex == 2 && point.status == .ok)
        }
    }
}
