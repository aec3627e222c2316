import Foundation

/// The Wilcoxon signed-rank test of paired differences (new build against base build, one pair per
/// iteration of an interleaved run): are they centred on 0?
///
/// Method: zero differences are dropped (Wilcoxon's rule); the others are ranked by absolute value
/// (ties get their mean rank) and `T⁺` is the sum of the ranks of the positive ones. Under no change each
/// sign is a coin toss, so `T⁺` is the sum of a random subset of the ranks: its exact law is counted
/// when `n ≤ exactLimit` and nothing ties, else `T⁺` is normal with mean `n(n+1)/4` and variance
/// `n(n+1)(2n+1)/24 − Σ(t³ − t)/48` over the groups of `t` tied values, without continuity correction
/// (as `scipy.stats.wilcoxon`'s defaults). The p-value is two-sided.
struct SignedRankTest: Sendable, Hashable {
    /// Non-zero differences ranked.
    let n: Int
    /// Sum of the ranks of the positive differences.
    let positiveRankSum: Double
    /// Two-sided p-value; 1 when nothing is left to rank.
    let pValue: Double

    /// Up to this many non-zero differences without ties, the law of `T⁺` is counted exactly.
    static let exactLimit = 50

    init(differences: [Double]) {
        let nonZero = differences.filter { $0 != 0 && $0.isFinite }
        n = nonZero.count
        guard n > 0 else {
            positiveRankSum = 0
            pValue = 1
            return
        }
        let order = nonZero.indices.sorted { abs(nonZero[$0]) < abs(nonZero[$1]) }
        var ranks = [Double](repeating: 0, count: n)
        var tieCorrection = 0.0
        var start = 0
        while start < n {
            var end = start
            while end + 1 < n, abs(nonZero[order[end + 1]]) == abs(nonZero[order[start]]) { end += 1 }
            let mean = Double(start + end + 2) / 2
            for position in start...end { ranks[order[position]] = mean }
            let tied = Double(end - start + 1)
            tieCorrection += tied * tied * tied - tied
            start = end + 1
        }
        positiveRankSum = zip(nonZero, ranks).reduce(0) { $0 + ($1.0 > 0 ? $1.1 : 0) }
        let count = Double(n)
        if n <= Self.exactLimit, tieCorrection == 0 {
            let law = SignedRankDistribution.cached(n: n)
            let t = Int(positiveRankSum.rounded())
            pValue = min(1, 2 * min(law.cumulative(atMost: t), law.cumulative(atMost: n * (n + 1) / 2 - t)))
        } else {
            let mean = count * (count + 1) / 4
            let variance = count * (count + 1) * (2 * count + 1) / 24 - tieCorrection / 48
            pValue =
                variance > 0
                ? min(1, 2 * NormalDistribution.survival(abs(positiveRankSum - mean) / variance.squareRoot())) : 1
        }
    }
}

/// The exact null law of the signed-rank statistic `T⁺` for `n` untied differences: `P(T⁺ = t)` for
/// `t = 0…n(n+1)/2`, counted by the recurrence over which ranks are positive (each subset of `{1…n}` has
/// chance `2⁻ⁿ`).
struct SignedRankDistribution: Sendable {
    let n: Int
    /// `P(T⁺ = t)`, index `t`.
    let probabilities: [Double]

    init(n: Int) {
        self.n = n
        let top = n * (n + 1) / 2
        // Subset counts up to 2⁵⁰ are exact in a Double.
        var counts = [Double](repeating: 0, count: top + 1)
        counts[0] = 1
        var reach = 0
        for rank in stride(from: 1, through: n, by: 1) {
            reach += rank
            for t in stride(from: reach, through: rank, by: -1) { counts[t] += counts[t - rank] }
        }
        let total = pow(2, Double(n))
        probabilities = counts.map { $0 / total }
    }

    /// `P(T⁺ ≤ t)`.
    func cumulative(atMost t: Int) -> Double {
        guard t >= 0 else { return 0 }
        return probabilities.prefix(min(t, probabilities.count - 1) + 1).reduce(0, +)
    }

    /// The 1-based rank `k` of the lower end of the `level` interval among the sorted Walsh averages: the
    /// largest `k` with `P(T⁺ ≤ k − 1) ≤ (1 − level)/2`, exact up to `SignedRankTest.exactLimit` pairs,
    /// else `⌊n(n+1)/4 − z·√(n(n+1)(2n+1)/24)⌋`; `nil` when too few pairs give no interval at that level.
    static func criticalRank(n: Int, level: Double) -> Int? {
        guard n > 0 else { return nil }
        let alphaHalf = (1 - level) / 2
        let k: Int
        if n <= SignedRankTest.exactLimit {
            let law = cached(n: n)
            var cumulative = 0.0
            var rank = 0
            while rank < law.probabilities.count {
                cumulative += law.probabilities[rank]
                if cumulative > alphaHalf * (1 + 1e-12) { break }
                rank += 1
            }
            k = rank
        } else {
            let count = Double(n)
            let sd = (count * (count + 1) * (2 * count + 1) / 24).squareRoot()
            k = Int((count * (count + 1) / 4 - NormalDistribution.quantile(1 - alphaHalf) * sd).rounded(.down))
        }
        return k >= 1 ? k : nil
    }

    /// The fewest untied pairs from which the exact two-sided test can reject at `alpha`: the smallest `n`
    /// with an interval at `1 − alpha` (``criticalRank(n:level:)``), i.e. whose smallest p-value, `2·2⁻ⁿ`
    /// (every sign alike), is at most `alpha`: 6 at 0.05 (5 pairs give at least p = 0.0625).
    static func fewestPairsToReject(alpha: Double) -> Int {
        var n = 1
        while n < SignedRankTest.exactLimit, criticalRank(n: n, level: 1 - alpha) == nil { n += 1 }
        return n
    }

    /// The smallest two-sided p-value `n` untied pairs can give: all signs alike, `2·2⁻ⁿ` (1 without pairs).
    static func smallestPValue(n: Int) -> Double { n > 0 ? min(1, pow(2, Double(1 - n))) : 1 }

    private static let cache = Locked<[Int: SignedRankDistribution]>([:])

    /// The law for `n`, counted once per process (a sequential run asks after every pair).
    static func cached(n: Int) -> SignedRankDistribution {
        if let known = cache.withLock({ $0[n] }) { return known }
        let law = SignedRankDistribution(n: n)
        cache.withLock { $0[n] = law }
        return law
    }
}
