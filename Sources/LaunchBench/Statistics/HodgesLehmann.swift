import Foundation

/// The Hodges–Lehmann estimate of the shift between two samples, with its distribution-free
/// confidence interval (Moses' method).
///
/// Method: the shift is the median of all `n₁·n₂` differences `yⱼ − xᵢ` (current minus baseline;
/// selected without listing them, see `PairwiseDifferences`):
/// robust to the odd slow launch, and the estimate that goes with the Mann–Whitney test. The
/// interval is `[D(k), D(N+1−k)]` over the sorted differences `D`, where `k` is the largest
/// integer with `P(U ≤ k−1) ≤ α/2` under the null distribution of `U` — counted exactly when
/// `n₁ + n₂ ≤ MannWhitneyU.exactLimit`, else `k = ⌊n₁n₂/2 − z₁₋α/₂·√(n₁n₂(n₁+n₂+1)/12)⌋`.
/// When `k < 1` the samples are too small for an interval at that level and there is none.
package struct HodgesLehmannShift: Sendable, Hashable, Codable {
    /// Median of the pairwise differences, in the samples' unit.
    package var shift: Double
    /// Confidence interval of the shift; `nil` when the samples are too small for one.
    package var low: Double?
    /// Upper end of the shift's interval; `nil` exactly when `low` is.
    package var high: Double?
    /// The confidence level, a fraction (0.95).
    package var level: Double

    /// - Parameters:
    ///   - x: the baseline values; `y`: the current values (both not empty).
    ///   - level: confidence level of the interval, a fraction.
    /// - Returns: `nil` when either sample is empty.
    package init?(baseline x: [Double], current y: [Double], level: Double = 0.95) {
        guard !x.isEmpty, !y.isEmpty else { return nil }
        // Selected, not sorted: n₁·n₂ differences of 10,000 against 500,000 launches would be 40 GB.
        let differences = PairwiseDifferences(baseline: x, current: y)
        let count = differences.count
        shift =
            count % 2 == 1
            ? differences.element(rank: count / 2 + 1)
            : (differences.element(rank: count / 2) + differences.element(rank: count / 2 + 1)) / 2
        self.level = level
        if let k = Self.criticalRank(n1: x.count, n2: y.count, level: level) {
            low = differences.element(rank: k)
            high = differences.element(rank: count + 1 - k)
        }
    }

    /// The 1-based rank `k` of the interval's lower end among the sorted differences, or `nil`.
    static func criticalRank(n1: Int, n2: Int, level: Double) -> Int? {
        let alphaHalf = (1 - level) / 2
        let k: Int
        if n1 + n2 <= MannWhitneyU.exactLimit {
            let distribution = UDistribution.cached(n1: n1, n2: n2)
            var cumulative = 0.0
            var rank = 0
            // P(U ≤ rank) ≤ α/2 ⇒ k = rank + 1 is allowed.
            while rank < distribution.probabilities.count {
                cumulative += distribution.probabilities[rank]
                if cumulative > alphaHalf * (1 + 1e-12) { break }
                rank += 1
            }
            k = rank
        } else {
            let product = Double(n1 * n2)
            let sd = (product * Double(n1 + n2 + 1) / 12).squareRoot()
            k = Int((product / 2 - NormalDistribution.quantile(1 - alphaHalf) * sd).rounded(.down))
        }
        return k >= 1 ? k : nil
    }
}
