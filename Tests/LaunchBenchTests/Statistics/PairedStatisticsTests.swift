import Foundation
import Testing

@testable import LaunchBench

/// The signed-rank test, the Walsh averages and the paired Hodges–Lehmann shift, against brute force,
/// the published critical-value table and `scipy.stats.wilcoxon` (scipy 1.17.1, computed with python3 on
/// the development machine, embedded as literals).
@Suite struct PairedStatisticsTests {
    /// Every one of the `2ⁿ` sign patterns of ranks `1…n`, counted by `T⁺`.
    private func enumeratedLaw(_ n: Int) -> [Double] {
        var counts = [Double](repeating: 0, count: n * (n + 1) / 2 + 1)
        for pattern in 0..<(1 << n) {
            let sum = (1...n).reduce(0) { pattern & (1 << ($1 - 1)) != 0 ? $0 + $1 : $0 }
            counts[sum] += 1
        }
        return counts.map { $0 / Double(1 << n) }
    }

    @Test func exactLawEqualsEverySignPatternCounted() {
        for n in 1...14 {
            let law = SignedRankDistribution(n: n).probabilities
            let enumerated = enumeratedLaw(n)
            #expect(law.count == enumerated.count)
            #expect(zip(law, enumerated).allSatisfy { abs($0 - $1) < 1e-15 }, "n=\(n)")
        }
    }

    @Test(arguments: [(6, 0), (9, 5), (10, 8), (20, 52), (30, 137), (50, 434)])
    func criticalRanksMatchThePublishedTable(n: Int, critical: Int) {
        // Two-sided α = 0.05: the table's largest T with P(T⁺ ≤ T) ≤ 0.025; the interval's rank is T + 1.
        #expect(SignedRankDistribution.criticalRank(n: n, level: 0.95) == critical + 1)
    }

    @Test func fewPairsGiveNoInterval() {
        // Five pairs: even all signs alike has chance 2/32 > 5 %.
        #expect(SignedRankDistribution.criticalRank(n: 5, level: 0.95) == nil)
    }

    @Test func exactPValueMatchesScipy() {
        // wilcoxon(d, method="exact"): statistic 5.0 (T⁻), p = 0.0390625.
        let d = [0.952, -0.147, 1.022, 0.43, 0.62, 0.59, 0.49, -0.08, 0.01]
        let test = SignedRankTest(differences: d)
        #expect(test.n == 9)
        #expect(test.positiveRankSum == 40)
        #expect(abs(test.pValue - 0.0390625) < 1e-12)
    }

    @Test func tiedPValueMatchesScipysNormalApproximation() {
        // wilcoxon(x, method="approx", correction=False): statistic 21.0 (T⁻), p = 0.04782479078465643.
        let x = [1, -2, 2, 3, -3, 4, 5, 5, -6, 7, 8, -1.5, 9, 10]
        let test = SignedRankTest(differences: x)
        #expect(test.positiveRankSum == 84)
        #expect(abs(test.pValue - 0.04782479078465643) < 1e-12)
    }

    @Test func manyPairsUseTheNormalApproximationAsScipy() {
        // 60 values, no ties: wilcoxon(y, method="approx", correction=False) → 845.0, p = 0.606334867988235.
        let y = [
            -0.502, -1.024, 0.052, 0.72, 1.436, 0.41, -0.253, -0.485, 1.049, 1.935, 0.573, -0.933, -0.658, 1.9,
            0.503, -1.432, 0.216, -0.863, -0.329, -0.188, -0.413, 0.853, 0.237, -0.289, 0.71, 1.13, -1.343, 0.043,
            -0.681, 0.127, -0.989, 0.321, 0.262, -0.004, -0.748, -0.096, -0.791, -1.055, 0.525, -0.809, 1.47, 1.017,
            -1.698, 0.572, -0.802, 0.333, 0.344, -1.688, 0.067, 0.044, 1.262, -0.881, 1.038, -0.799, -0.031, -0.54,
            1.749, 0.868, 2.732, 0.942,
        ]
        let test = SignedRankTest(differences: y)
        #expect(min(test.positiveRankSum, 1830 - test.positiveRankSum) == 845)
        #expect(abs(test.pValue - 0.606334867988235) < 1e-12)
    }

    @Test func zerosAreDroppedAndNothingLeftIsNoEvidence() {
        #expect(SignedRankTest(differences: [0, 0, 0]).pValue == 1)
        #expect(SignedRankTest(differences: [0, 1, 2, 3]).n == 3)
    }

    /// Walsh averages listed and sorted: the definition.
    private func bruteForceWalsh(_ d: [Double]) -> [Double] {
        d.indices.flatMap { i in d.indices.filter { $0 >= i }.map { j in (d[i] + d[j]) / 2 } }.sorted()
    }

    @Test func everyWalshRankEqualsTheSortedList() {
        var random = SeededRandom(seed: 37)
        for round in 0..<60 {
            let n = Int.random(in: 1...40, using: &random)
            let d = (0..<n).map { _ in
                round % 2 == 0
                    ? Double(Int.random(in: -3...3, using: &random))
                    : (Double.random(in: -0.3...0.4, using: &random) * 1e4).rounded() / 1e4
            }
            let sorted = bruteForceWalsh(d)
            let averages = WalshAverages(d)
            #expect(averages.count == sorted.count)
            let selected = (1...sorted.count).map { averages.element(rank: $0) }
            #expect(selected == sorted, "n=\(n) round \(round)")
        }
    }

    @Test func pairedShiftEqualsTheBruteForceEstimateAndInterval() throws {
        // The scipy example as ratios e^d: the log ratios are d again.
        let d = [0.952, -0.147, 1.022, 0.43, 0.62, 0.59, 0.49, -0.08, 0.01]
        let shift = try #require(PairedShift(base: d.map { _ in 400 }, new: d.map { 400 * exp($0) }))
        let walsh = bruteForceWalsh(PairedShift.logRatios(base: d.map { _ in 400 }, new: d.map { 400 * exp($0) }))
        #expect(shift.pairs == 9)
        #expect(abs(shift.shiftPercent - PairedShift.percent(walsh[22])) < 1e-9)
        // n = 9 at 95 %: k = 6, so [W(6), W(40)] of the 45 averages.
        #expect(abs(try #require(shift.lowPercent) - PairedShift.percent(walsh[5])) < 1e-9)
        #expect(abs(try #require(shift.highPercent) - PairedShift.percent(walsh[39])) < 1e-9)
    }

    @Test func pairsWithAMissingValueAreSkipped() {
        #expect(PairedShift.logRatios(base: [400, 0, 410, .nan], new: [440, 420, -1, 400]).count == 1)
        #expect(PairedShift(base: [0], new: [400]) == nil)
    }

    @Test func smallestVisibleChangeFollowsTheSquareRootOfThePairs() throws {
        // σ of the log ratios fixed by construction: ±0.1 alternating has MAD 0.1, σ = 0.14826.
        let ten = (0..<10).map { $0 % 2 == 0 ? 0.1 : -0.1 }
        let forty = (0..<40).map { $0 % 2 == 0 ? 0.1 : -0.1 }
        let a = try #require(SmallestVisibleChange.paired(logRatios: ten, level: 0.95))
        let b = try #require(SmallestVisibleChange.paired(logRatios: forty, level: 0.95))
        let expected = (1.959964 + 0.841621) * (Double.pi / 3).squareRoot() * 0.14826 / 10.0.squareRoot()
        #expect(abs(a - PairedShift.percent(expected)) < 0.01)
        #expect(abs(log(1 + b / 100) * 2 - log(1 + a / 100)) < 1e-9)
    }

    @Test func aStoredBaselineHasAFloorNoCurrentRunGoesBelow() throws {
        // 20 baseline launches at σ ≈ 10 % of the median: the floor is (z + z₀.₈)·√(π/3)·10/√20 ≈ 6.4 %.
        let baseline = (0..<20).map { 400 + ($0 % 2 == 0 ? 27.0 : -27.0) }
        let floor = try #require(SmallestVisibleChange.baselineFloor(baseline: baseline, level: 0.95))
        #expect(
            abs(floor - (1.959964 + 0.841621) * (Double.pi / 3).squareRoot() * 1.4826 * 27 / 4 / 20.0.squareRoot())
                < 0.01)
        let many = try #require(
            SmallestVisibleChange.twoRuns(
                baseline: baseline, current: Array(repeating: baseline, count: 50).flatMap { $0 }, level: 0.95))
        #expect(many > floor)
    }
}

/// Issue 44: "the smallest change these pairs could show" is true at every number of pairs.
extension PairedStatisticsTests {
    @Test func theFewestPairsThatCanRejectAreComputed() {
        #expect(SignedRankDistribution.fewestPairsToReject(alpha: 0.05) == 6)
        #expect(SignedRankDistribution.smallestPValue(n: 5) == 0.0625)
        #expect(SignedRankTest(differences: [1, 2, 3, 4, 5]).pValue == 0.0625)
        #expect(SignedRankTest(differences: [1, 2, 3, 4, 5, 6]).pValue < 0.05)
    }

    @Test(arguments: 1...10)
    func theSmallestVisibleChangeIsTrueAtThatNumberOfPairs(pairs: Int) throws {
        // Noisy pairs of one build (8 % per pair, seeded); a change of the figure's size added to every pair
        // moves their 95 % interval off 0 either way. Below the fewest pairs the test rejects from, no figure.
        var random = SeededRandom(seed: UInt64(40 + pairs))
        let logs = (0..<pairs).map { _ in 0.08 * random.gaussian() }
        let visible = SmallestVisibleChange.paired(logRatios: logs, level: 0.95)
        guard pairs >= SignedRankDistribution.fewestPairsToReject(alpha: 0.05) else {
            #expect(visible == nil, "\(pairs) pairs: ±\(visible ?? 0) %")
            return
        }
        let centre = log1p(try #require(PairedShift(logRatios: logs)).shiftPercent / 100)
        let delta = log1p(try #require(visible) / 100) * (1 + 1e-6)
        let up = try #require(PairedShift(logRatios: logs.map { $0 - centre + delta }, level: 0.95))
        let down = try #require(PairedShift(logRatios: logs.map { $0 - centre - delta }, level: 0.95))
        #expect(try #require(up.lowPercent) > 0, "\(pairs) pairs: ±\(visible ?? 0) %")
        #expect(try #require(down.highPercent) < 0, "\(pairs) pairs: ±\(visible ?? 0) %")
    }
}
