import Foundation

/// A distribution-free confidence interval for the median, from order statistics.
///
/// Method: for `n` independent launches, the number `B` of values below the true median is
/// Binomial(n, ½) whatever the distribution of launch times (it need not be normal, and launch
/// times are not: they are skewed, with a long tail). The interval `[x(k), x(n−k+1)]` (1-based
/// order statistics) contains the median with probability `1 − 2·P(B ≤ k−1)`. We take the
/// largest `k` whose coverage is at least the requested level (95 %), so the interval is the
/// narrowest symmetric one that keeps the promise; its exact coverage (≥ 95 %, e.g. 96.9 % for
/// n = 6, 97.9 % for n = 10) is reported next to it.
///
/// Small samples: even the widest interval, `[min, max]`, covers only `1 − 2·0.5ⁿ`, which is
/// below 95 % for n < 6 (93.75 % at n = 5). Then no 95 % interval exists and `init` returns `nil`:
/// the exports leave the cells empty rather than invent one.
package struct MedianConfidenceInterval: Sendable, Hashable, Codable {
    /// Lower end, `x(lowerRank)`: a measured value, in the values' unit.
    package var low: Double
    /// Upper end, `x(upperRank)`: a measured value, in the values' unit.
    package var high: Double
    /// 1-based ranks of the order statistics used: `low = x(lowerRank)`, `high = x(upperRank)`.
    package var lowerRank: Int
    /// `n − lowerRank + 1`: the interval is symmetric in rank.
    package var upperRank: Int
    /// The exact probability that such an interval contains the median, as a fraction (≥ the level asked for).
    package var coverage: Double

    /// - Parameters:
    ///   - sorted: the values, ascending.
    ///   - level: the coverage wanted, a fraction (0.95).
    /// - Returns: `nil` when no interval from order statistics reaches `level` (n < 6 for 95 %).
    package init?(sorted: [Double], level: Double = 0.95) {
        guard let (rank, coverage) = Self.ranks(count: sorted.count, level: level) else { return nil }
        lowerRank = rank
        upperRank = sorted.count - rank + 1
        low = sorted[lowerRank - 1]
        high = sorted[upperRank - 1]
        self.coverage = coverage
    }

    /// The lower rank `k` (1-based) and the coverage of `[x(k), x(n−k+1)]` for `n` values, or `nil`.
    package static func ranks(count n: Int, level: Double = 0.95) -> (lowerRank: Int, coverage: Double)? {
        guard n > 0 else { return nil }
        let tail = (1 - level) / 2
        // Binomial(n, ½) probabilities in log space, so large n neither underflows nor overflows.
        var logPMF = -Double(n) * log(2.0)
        var cdf = 0.0
        var best: (Int, Double)? = nil
        for j in 0..<((n + 1) / 2) {
            cdf += exp(logPMF)
            // P(B ≤ j) ≤ tail means k = j + 1 keeps the coverage 1 − 2·P(B ≤ j) ≥ level.
            // A relative epsilon keeps an exact tie (coverage exactly 95 %) on the safe side of rounding.
            guard cdf <= tail * (1 + 1e-12) else { break }
            best = (j + 1, 1 - 2 * cdf)
            logPMF += log(Double(n - j)) - log(Double(j + 1))
        }
        return best
    }
}
