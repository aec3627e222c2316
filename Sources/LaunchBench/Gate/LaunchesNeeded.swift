import Foundation

/// How many launches per side would let the gate see a change of the threshold's size.
///
/// Method: the Mann–Whitney test needs about `π/3` times the samples of a t-test on normal data
/// (its asymptotic relative efficiency is 3/π ≈ 0.955). For a two-sided test at `alpha` with 80 %
/// power to flag a true shift of twice the threshold (so that the estimated shift also exceeds the
/// threshold), `n = (π/3) · 2σ² (z₁₋α/₂ + z₀.₈)² / (2T)²` per side, where `σ` is the launch-to-launch
/// spread (pooled, from the median absolute deviation × 1.4826, robust to slow outliers) and `T`
/// the threshold in ms. Never fewer than the gate's minimum.
enum LaunchesNeeded {
    /// - Parameters:
    ///   - baseline, current: the measured values of each side.
    ///   - thresholdPercent: the gate's threshold.
    ///   - alpha: the test's level.
    ///   - minimum: the gate's minimum launches per side.
    /// - Returns: launches per side, or `nil` when the spread cannot be estimated (fewer than 2 values on both sides).
    static func estimate(
        baseline: [Double], current: [Double], thresholdPercent: Double, alpha: Double, minimum: Int
    ) -> Int? {
        let spreads = [baseline, current].filter { $0.count >= 2 }.map { (robustSD($0), $0.count) }
        guard !spreads.isEmpty, let reference = median(baseline.isEmpty ? current : baseline), reference > 0 else {
            return nil
        }
        let pooledVariance =
            spreads.reduce(0) { $0 + $1.0 * $1.0 * Double($1.1 - 1) }
            / Double(spreads.reduce(0) { $0 + $1.1 - 1 })
        let shift = 2 * thresholdPercent / 100 * reference
        guard shift > 0 else { return nil }
        let z = NormalDistribution.quantile(1 - alpha / 2) + NormalDistribution.quantile(0.8)
        let n = Double.pi / 3 * 2 * pooledVariance * z * z / (shift * shift)
        guard n.isFinite else { return nil }
        // A tiny threshold (`--threshold 1e-9`) asks for more launches than an Int holds: a billion says it.
        return max(minimum, Int(min(n.rounded(.up), 1e9)))
    }

    /// Median absolute deviation × 1.4826 (the standard deviation for normal data); falls back to
    /// the standard deviation when more than half the values are equal.
    static func robustSD(_ values: [Double]) -> Double {
        guard let center = median(values) else { return 0 }
        let mad = median(values.map { abs($0 - center) }) ?? 0
        if mad > 0 { return 1.4826 * mad }
        let mean = values.reduce(0, +) / Double(values.count)
        return (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(max(1, values.count - 1))).squareRoot()
    }

    static func median(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : Percentile.of(sorted: values.sorted(), fraction: 0.5)
    }
}
