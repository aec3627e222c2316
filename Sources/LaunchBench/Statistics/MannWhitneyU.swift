import Foundation

/// The two-sided Mann–Whitney U test (Wilcoxon rank-sum test): do two sets of launch times
/// come from the same distribution, or is one shifted?
///
/// Method (the same as `scipy.stats.mannwhitneyu(x, y, alternative="two-sided")`):
/// - `U` of the first sample is its rank sum (mid-ranks for ties) minus `n₁(n₁+1)/2`.
/// - **Exact** when neither sample has ties and `n₁ + n₂ ≤ exactLimit`: the null distribution of
///   `U` is counted exactly, and `p = 2·P(U ≥ max(U₁, U₂))`, capped at 1.
/// - **Normal approximation** otherwise: mean `n₁n₂/2`, variance
///   `n₁n₂/12 · ((n+1) − Σ(t³−t)/(n(n−1)))` over the tie groups `t` (tie correction), with a
///   continuity correction of ½: `z = (max(U₁, U₂) − n₁n₂/2 − ½)/σ`, `p = 2·P(Z > z)`, capped at 1.
package struct MannWhitneyResult: Sendable, Hashable, Codable {
    /// How the p-value was computed: `exact` (the null distribution counted) or `normal` (the approximation,
    /// with tie and continuity corrections).
    package enum Method: String, Sendable, Hashable, Codable {
        case exact
        case normal
    }

    /// `U` of the first sample (the baseline in the gate).
    package var u: Double
    /// Two-sided p-value.
    package var pValue: Double
    /// The method actually used; `exact` only when neither sample has ties.
    package var method: Method
    /// The standardised statistic of the normal approximation; `nil` for the exact test.
    package var z: Double?
}

/// Namespace for the two-sided Mann–Whitney U test; the method is described on `MannWhitneyResult`.
package enum MannWhitneyU {
    /// Largest `n₁ + n₂` for the exact test (its cost grows as `n₁·n₂·n₁n₂`).
    package static let exactLimit = 60

    /// The smallest two-sided p-value samples of `n1` and `n2` values can give (every x below every y, no
    /// ties): `2/C(n₁+n₂, n₁)`, capped at 1. At or above α, no data of that size can be significant.
    package static func smallestPValue(_ n1: Int, _ n2: Int) -> Double {
        guard n1 > 0, n2 > 0 else { return 1 }
        var orderings = 1.0
        for i in 0..<min(n1, n2) { orderings = orderings * Double(n1 + n2 - i) / Double(i + 1) }
        return min(1, 2 / orderings)
    }

    /// Tests `x` against `y`, two-sided.
    /// - Parameters:
    ///   - method: force a method; `nil` chooses as described above. Exact is only possible without ties.
    /// - Returns: `nil` when either sample is empty.
    package static func test(_ x: [Double], _ y: [Double], method: MannWhitneyResult.Method? = nil)
        -> MannWhitneyResult?
    {
        let n1 = x.count
        let n2 = y.count
        guard n1 > 0, n2 > 0 else { return nil }
        let ranked = Ranks(x + y)
        let rankSumX = ranked.ranks[0..<n1].reduce(0, +)
        let u1 = rankSumX - Double(n1 * (n1 + 1)) / 2
        let u2 = Double(n1 * n2) - u1
        let uMax = max(u1, u2)

        if !ranked.hasTies && (method == .exact || (method == nil && n1 + n2 <= exactLimit)) {
            let distribution = UDistribution.cached(n1: n1, n2: n2)
            let p = min(1, 2 * distribution.upperTail(atLeast: Int(uMax.rounded())))
            return MannWhitneyResult(u: u1, pValue: p, method: .exact, z: nil)
        }
        let n = Double(n1 + n2)
        let mean = Double(n1 * n2) / 2
        let variance = Double(n1 * n2) / 12 * ((n + 1) - ranked.tieTerm / (n * (n - 1)))
        guard variance > 0 else {
            // Every value is the same: nothing tells the samples apart.
            return MannWhitneyResult(u: u1, pValue: 1, method: .normal, z: 0)
        }
        let z = (uMax - mean - 0.5) / variance.squareRoot()
        return MannWhitneyResult(u: u1, pValue: min(1, 2 * NormalDistribution.survival(z)), method: .normal, z: z)
    }
}

/// Mid-ranks (1-based) of values, with what the tie correction needs.
struct Ranks {
    var ranks: [Double]
    /// Σ(t³ − t) over groups of `t` equal values.
    var tieTerm: Double
    var hasTies: Bool { tieTerm > 0 }

    init(_ values: [Double]) {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var ranks = [Double](repeating: 0, count: values.count)
        var tieTerm = 0.0
        var start = 0
        while start < order.count {
            var end = start
            while end + 1 < order.count && values[order[end + 1]] == values[order[start]] { end += 1 }
            let midRank = Double(start + end) / 2 + 1
            for position in start...end { ranks[order[position]] = midRank }
            let t = Double(end - start + 1)
            tieTerm += t * t * t - t
            start = end + 1
        }
        self.ranks = ranks
        self.tieTerm = tieTerm
    }
}

/// The exact null distribution of `U` for samples of `n₁` and `n₂` values without ties.
///
/// `c(u; i, j)`, the number of orderings of `i` x's and `j` y's with `U = u`, follows from where the
/// largest value comes from: an x beats all `j` y's, a y beats nobody, so
/// `c(u; i, j) = c(u − j; i − 1, j) + c(u; i, j − 1)`. Counts are kept as `Double` (exact up to 2⁵³,
/// relative error 1e-16 beyond), and turned into probabilities by dividing by their sum, C(n₁+n₂, n₁).
struct UDistribution {
    let n1: Int
    let n2: Int
    /// `probabilities[u]` = P(U = u), u in 0...n₁n₂.
    let probabilities: [Double]

    init(n1: Int, n2: Int) {
        self.n1 = n1
        self.n2 = n2
        let maxU = n1 * n2
        // counts[j][u] for the current i; i = 0: only U = 0.
        var counts = [[Double]](repeating: [1] + [Double](repeating: 0, count: maxU), count: n2 + 1)
        if n1 > 0 {
            for _ in 1...n1 {
                var next = [[Double]](repeating: [Double](repeating: 0, count: maxU + 1), count: n2 + 1)
                next[0][0] = 1
                if n2 > 0 {
                    for j in 1...n2 {
                        for u in 0...maxU {
                            let fromX = u >= j ? counts[j][u - j] : 0
                            next[j][u] = fromX + next[j - 1][u]
                        }
                    }
                }
                counts = next
            }
        }
        let total = counts[n2].reduce(0, +)
        probabilities = counts[n2].map { $0 / total }
    }

    /// The distribution for these sizes, computed once per process (a gate compares many
    /// device × kind × metric rows of the same size).
    static func cached(n1: Int, n2: Int) -> UDistribution {
        cache.withLock { cache in
            if let found = cache[[n1, n2]] { return found }
            let made = UDistribution(n1: n1, n2: n2)
            cache[[n1, n2]] = made
            return made
        }
    }

    private static let cache = Locked<[[Int]: UDistribution]>([:])

    /// P(U ≥ u).
    func upperTail(atLeast u: Int) -> Double {
        guard u > 0 else { return 1 }
        guard u < probabilities.count else { return 0 }
        return probabilities[u...].reduce(0, +)
    }

    /// P(U ≤ u).
    func lowerTail(atMost u: Int) -> Double {
        guard u >= 0 else { return 0 }
        return probabilities[0...min(u, probabilities.count - 1)].reduce(0, +)
    }
}
