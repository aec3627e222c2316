import Foundation

/// The shift of a new build against a base build measured in pairs on one phone: the one-sample
/// Hodges–Lehmann estimate of the per-pair log ratios `log(new/base)`, with its distribution-free interval
/// (Tukey's, from the signed-rank law), reported as percentages.
///
/// Why log ratios: the phone's state multiplies a launch's time (a warm phone is x % slower for every
/// phase), so on the log scale a pair's shared state cancels and what is left is the builds' ratio and the
/// two launches' own noise; a pair of 400 ms launches and one of 800 ms weigh alike. The estimate is the
/// median of the Walsh averages (the estimate that goes with the signed-rank test, robust to the odd
/// launch that background work slowed), the interval `[W(k), W(N+1−k)]` over the sorted Walsh averages
/// with `k` from ``SignedRankDistribution/criticalRank(n:level:)``. `percent(x) = 100·(eˣ − 1)`.
package struct PairedShift: Sendable, Hashable, Codable {
    /// Pairs judged.
    package var pairs: Int
    /// The estimated change of the new build, % of the base build.
    package var shiftPercent: Double
    /// The interval's ends, %; `nil` with too few pairs for one at `level`.
    package var lowPercent: Double?
    package var highPercent: Double?
    /// The interval's confidence level, a fraction.
    package var level: Double

    /// - Parameters:
    ///   - base, new: the two builds' values of the same pairs, in order (`base[i]` and `new[i]` are
    ///     iteration `i`); pairs where either is not positive are skipped.
    ///   - level: the interval's confidence level.
    /// - Returns: `nil` without a single usable pair.
    package init?(base: [Double], new: [Double], level: Double = 0.95) {
        self.init(logRatios: Self.logRatios(base: base, new: new), level: level)
    }

    /// The shift of pairs already taken as log ratios (`logRatios(base:new:)`); `nil` when there are none.
    package init?(logRatios logs: [Double], level: Double = 0.95) {
        guard !logs.isEmpty else { return nil }
        let averages = WalshAverages(logs)
        let count = averages.count
        let median = Self.median(averages)
        pairs = logs.count
        shiftPercent = Self.percent(median)
        self.level = level
        if let k = SignedRankDistribution.criticalRank(n: logs.count, level: level) {
            lowPercent = Self.percent(averages.element(rank: k))
            highPercent = Self.percent(averages.element(rank: count + 1 - k))
        }
    }

    /// `log(new/base)` of every pair whose two values are positive and finite.
    package static func logRatios(base: [Double], new: [Double]) -> [Double] {
        zip(base, new).compactMap { b, n in
            guard b > 0, n > 0, b.isFinite, n.isFinite else { return nil }
            return log(n / b)
        }
    }

    /// The median of the Walsh averages: the Hodges–Lehmann estimate, on the log scale.
    static func median(_ averages: WalshAverages) -> Double {
        let count = averages.count
        return count % 2 == 1
            ? averages.element(rank: count / 2 + 1)
            : (averages.element(rank: count / 2) + averages.element(rank: count / 2 + 1)) / 2
    }

    /// A log ratio as a % change.
    static func percent(_ log: Double) -> Double { (exp(log) - 1) * 100 }
}
