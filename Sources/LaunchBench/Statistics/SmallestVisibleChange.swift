import Foundation

/// The smallest change a comparison could have shown at its noise and number of launches: the true
/// change its test would call significant four times in five (80 % power), in % of the base.
///
/// Method: a rank test needs about `π/3` times the launches of a t-test on normal data (asymptotic
/// relative efficiency 3/π), so a change is seen with 80 % power when it is `(c + z₀.₈)·σ·√(π/3)` standard
/// errors big, with `c` the interval's critical value (`z₁₋α/₂` for a fixed sample, the boundary's value at
/// the last look for a sequential one) and `σ` robust (median absolute deviation × 1.4826):
/// - **paired** (an interleaved run): `σ` of the per-pair log ratios, standard error `σ/√n`;
/// - **two runs** (a stored baseline): `σ` pooled over both runs in % of the baseline median, standard error
///   `σ·√(1/n₁ + 1/n₂)`. With as many current launches as one likes it is still `σ·√(1/n₁)`: the baseline's
///   own launches set a floor (``baselineFloor(baseline:level:)``), and a shift of the whole phone between
///   the two runs, which no run can measure from its own launches, comes on top of it.
package enum SmallestVisibleChange {
    /// `(c + z₀.₈)·√(π/3)` for a two-sided interval at `level`.
    static func factor(level: Double) -> Double {
        (NormalDistribution.quantile(1 - (1 - level) / 2) + NormalDistribution.quantile(0.8))
            * (Double.pi / 3)
            .squareRoot()
    }

    /// For pairs with log ratios `logRatios` (`PairedShift.logRatios`) judged at `level`; `nil` when so few
    /// pairs give no interval at `level` (the test cannot reject from them, whatever the change).
    ///
    /// The normal figure above holds for many pairs; with few, the exact interval is wider than it says (6
    /// pairs at 95 % span all their Walsh averages). So the figure is at least the shift that would move these
    /// very pairs' interval, centred on their estimate, off 0 on either side: a change that big shows.
    package static func paired(logRatios: [Double], level: Double) -> Double? {
        guard logRatios.count >= 2, let k = SignedRankDistribution.criticalRank(n: logRatios.count, level: level)
        else { return nil }
        let sd = LaunchesNeeded.robustSD(logRatios)
        let normal = factor(level: level) * sd / Double(logRatios.count).squareRoot()
        let averages = WalshAverages(logRatios)
        let centre = PairedShift.median(averages)
        let exact = max(centre - averages.element(rank: k), averages.element(rank: averages.count + 1 - k) - centre, 0)
        return PairedShift.percent(max(normal, exact))
    }

    /// For a baseline and a current run of values judged at `level`, in % of the baseline median; `nil`
    /// when the spread cannot be estimated.
    package static func twoRuns(baseline: [Double], current: [Double], level: Double) -> Double? {
        guard !baseline.isEmpty, !current.isEmpty,
            let sd = pooledPercentSpread(baseline: baseline, current: current)
        else { return nil }
        return factor(level: level) * sd * (1 / Double(baseline.count) + 1 / Double(current.count)).squareRoot()
    }

    /// What `twoRuns` tends to with endless current launches: the least a stored baseline can ever show.
    package static func baselineFloor(baseline: [Double], level: Double) -> Double? {
        guard baseline.count >= 2, let sd = pooledPercentSpread(baseline: baseline, current: []) else {
            return nil
        }
        return factor(level: level) * sd / Double(baseline.count).squareRoot()
    }

    /// The robust spread of `values` (median absolute deviation × 1.4826), in % of their median.
    package static func spreadPercent(_ values: [Double]) -> Double? {
        guard values.count >= 2, let median = LaunchesNeeded.median(values), median > 0 else { return nil }
        return LaunchesNeeded.robustSD(values) / median * 100
    }

    /// The fewest baseline launches whose ``baselineFloor(baseline:level:)`` is below `percent` at `spreadPercent`.
    package static func baselineLaunches(below percent: Double, spreadPercent: Double, level: Double) -> Int {
        guard percent > 0 else { return Int.max }
        let n = pow(factor(level: level) * spreadPercent / percent, 2)
        return n.isFinite ? Int(min(n.rounded(.down), 1e9)) + 1 : Int.max
    }

    /// The pooled robust spread of the sides with ≥ 2 values, in % of the baseline median.
    private static func pooledPercentSpread(baseline: [Double], current: [Double]) -> Double? {
        let sides = [baseline, current].filter { $0.count >= 2 }
        guard !sides.isEmpty, let median = LaunchesNeeded.median(baseline), median > 0 else { return nil }
        let variance =
            sides.reduce(0) { $0 + pow(LaunchesNeeded.robustSD($1), 2) * Double($1.count - 1) }
            / Double(sides.reduce(0) { $0 + $1.count - 1 })
        return variance.squareRoot() / median * 100
    }
}
