import Foundation
import TestSupport
import Testing

@testable import LaunchBench

/// Issue 44, the unpaired gate: a test that can never reject at the sample sizes given is no pass.
@Suite struct UnpairedTooFewLaunchesTests {
    @Test func theSmallestRankTestPValueIsComputed() {
        #expect(MannWhitneyU.smallestPValue(5, 5) == 2.0 / 252)
        #expect(MannWhitneyU.smallestPValue(2, 3) == 0.2)
        #expect(MannWhitneyU.test([1, 2], [3, 4, 5])?.pValue == 0.2)
    }

    @Test func launchesTooFewForTheTestToRejectAreInsufficientNotUnchanged() throws {
        // Two baseline and three current launches, the current twice as slow: the exact test's smallest p is 0.2.
        let comparison = GateComparison(
            baseline: GateSamples.cold([400, 401]), current: GateSamples.cold([800, 801, 802]),
            settings: GateSettings(minimumLaunches: 2))
        let entry = try #require(comparison.entries.first)
        #expect(entry.verdict == .insufficientData, "\(entry.reason)")
        #expect(entry.reason.contains("can never differ significantly"), "\(entry.reason)")
        // The gate's own minimum (5 a side) can reject: the same slowdown there is a regression.
        let five = GateComparison(
            baseline: GateSamples.cold([400, 401, 402, 403, 404]), current: GateSamples.cold([800, 801, 802, 803, 804]))
        #expect(five.entries.first?.verdict == .regression)
    }
}
