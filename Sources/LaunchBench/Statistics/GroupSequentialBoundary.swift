import Foundation

/// Two-sided critical values of a group-sequential test whose type I error holds however many times
/// the data are looked at: Lan–DeMets alpha spending with the O'Brien–Fleming-type function, spent on
/// each side at the one-sided level `α/2`:
///
///     α₁(t) = 2 − 2·Φ(z₁₋α/₄ / √t),   0 < t ≤ 1,   α₁(1) = α/2,
///
/// where `t` is the information fraction of a look (Lan & DeMets 1983, Biometrika 70:659–663;
/// Jennison & Turnbull, *Group Sequential Methods*, 2000, §7.2; gsDesign's `sfLDOF` at one-sided
/// `α/2`). Look `k` rejects when `|Z_k| ≥ c_k`, and the symmetric `c_k` are chosen so that, under no
/// change, the chance of first rejecting at look `k` is exactly `2·(α₁(t_k) − α₁(t_{k−1}))`: the whole
/// design rejects with probability `α`, at most `α/2` on each side. Early looks get very
/// wide boundaries (few launches rarely convince), the last one is close to the fixed-sample `z₁₋α/₂`.
///
/// The `c_k` come from the joint normal law of the statistics, `Z_k = S_k/√t_k` with `S` a Brownian
/// motion in `t` (the canonical distribution; J&T §3.1, §19.2): the density of `S` on the continuation
/// region is carried from look to look by numerical integration (Simpson's rule on a grid), and each
/// `c_k` is found by bisection.
struct GroupSequentialBoundary: Sendable, Hashable {
    /// The information fractions of the looks, increasing, the last one 1.
    let informationFractions: [Double]
    /// `c_k` per look, on the z scale; `.infinity` where the look spends no alpha.
    let criticalValues: [Double]
    /// The two-sided type I error of the whole design.
    let alpha: Double

    /// Grid points per unit of `S` (and at least `minimumGridPoints` per look): the boundaries are
    /// accurate to about 1e-3, far below what launch data can tell apart.
    static let gridDensity = 60.0
    static let minimumGridPoints = 120

    /// - Parameters:
    ///   - informationFractions: increasing values in (0, 1]; the last is taken as 1.
    ///   - alpha: the two-sided error to spend (0.05).
    init(informationFractions: [Double], alpha: Double) {
        precondition(!informationFractions.isEmpty, "a design needs at least one look")
        precondition(alpha > 0 && alpha < 1, "alpha \(alpha)")
        var fractions = informationFractions.map { min(max($0, 1e-9), 1) }
        fractions[fractions.count - 1] = 1
        self.informationFractions = fractions
        self.alpha = alpha
        criticalValues = Self.boundaries(fractions, alpha: alpha)
    }

    /// The two-sided alpha spent up to information fraction `t` (both sides together).
    static func spent(_ t: Double, alpha: Double) -> Double {
        guard t > 0 else { return 0 }
        let oneSided =
            2 - 2 * NormalDistribution.cdf(NormalDistribution.quantile(1 - alpha / 4) / min(t, 1).squareRoot())
        return 2 * oneSided
    }

    /// The confidence level of the repeated confidence interval at look `index` (`2Φ(c_k) − 1`): the
    /// intervals of all looks together cover the true shift with probability at least `1 − alpha`.
    func level(atLook index: Int) -> Double {
        let c = criticalValues[index]
        return c.isFinite ? 2 * NormalDistribution.cdf(c) - 1 : 1
    }

    private static func boundaries(_ t: [Double], alpha: Double) -> [Double] {
        var values: [Double] = []
        // The density of S on the previous look's continuation region: grid points and values.
        var grid: [Double] = []
        var density: [Double] = []
        var previousT = 0.0
        var previousSpent = 0.0
        for tk in t {
            let spentNow = spent(tk, alpha: alpha)
            let increment = max(spentNow - previousSpent, 0)
            let delta = tk - previousT
            let c: Double
            if grid.isEmpty {
                c = increment > 1e-15 ? NormalDistribution.quantile(1 - increment / 2) : .infinity
            } else {
                c = solve(increment: increment, grid: grid, density: density, delta: delta, t: tk)
            }
            values.append(c)
            // Carry the density to this look, on its continuation region |S| < c·√t.
            let bound = min(c, 8.5) * tk.squareRoot()
            let points = max(minimumGridPoints, Int((2 * bound * gridDensity).rounded(.up)))
            let count = points % 2 == 0 ? points + 1 : points
            let next = (0..<count).map { -bound + 2 * bound * Double($0) / Double(count - 1) }
            if grid.isEmpty {
                density = next.map { normalDensity($0, variance: tk) }
            } else {
                let weights = simpsonWeights(grid)
                density = next.map { s in
                    var sum = 0.0
                    for i in grid.indices {
                        sum += weights[i] * density[i] * normalDensity(s - grid[i], variance: delta)
                    }
                    return sum
                }
            }
            grid = next
            previousT = tk
            previousSpent = spentNow
        }
        return values
    }

    /// The `c` whose rejection region at this look has probability `increment` given no earlier rejection.
    private static func solve(increment: Double, grid: [Double], density: [Double], delta: Double, t: Double)
        -> Double
    {
        guard increment > 1e-15 else { return .infinity }
        let weights = simpsonWeights(grid)
        let sd = delta.squareRoot()
        func crossing(_ c: Double) -> Double {
            let b = c * t.squareRoot()
            var sum = 0.0
            for i in grid.indices {
                let u = grid[i]
                let tails = NormalDistribution.cdf((-b - u) / sd) + NormalDistribution.survival((b - u) / sd)
                sum += weights[i] * density[i] * tails
            }
            return sum
        }
        var low = 0.0
        var high = 12.0
        for _ in 0..<60 {
            let mid = (low + high) / 2
            if crossing(mid) > increment { low = mid } else { high = mid }
        }
        return (low + high) / 2
    }

    private static func simpsonWeights(_ grid: [Double]) -> [Double] {
        let n = grid.count
        guard n >= 3 else { return Array(repeating: n == 2 ? (grid[1] - grid[0]) / 2 : 0, count: n) }
        let h = (grid[n - 1] - grid[0]) / Double(n - 1)
        return (0..<n).map { i in
            if i == 0 || i == n - 1 { return h / 3 }
            return (i % 2 == 1 ? 4 : 2) * h / 3
        }
    }

    private static func normalDensity(_ x: Double, variance: Double) -> Double {
        exp(-x * x / (2 * variance)) / (2 * Double.pi * variance).squareRoot()
    }
}
