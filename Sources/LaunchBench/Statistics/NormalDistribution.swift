import Foundation

/// The standard normal distribution, for the large-sample approximations of the gate's tests.
enum NormalDistribution {
    /// P(Z > z).
    static func survival(_ z: Double) -> Double { 0.5 * erfc(z / 2.0.squareRoot()) }

    /// P(Z ≤ z).
    static func cdf(_ z: Double) -> Double { 0.5 * erfc(-z / 2.0.squareRoot()) }

    /// The `p`-quantile (0 < p < 1), by bisection on `cdf`: slow next to a rational
    /// approximation but exact to the last bit, and it is called a handful of times per report.
    static func quantile(_ p: Double) -> Double {
        precondition(p > 0 && p < 1, "normal quantile of \(p)")
        var low = -40.0
        var high = 40.0
        for _ in 0..<200 {
            let mid = (low + high) / 2
            if cdf(mid) < p { low = mid } else { high = mid }
            if high - low < 1e-15 { break }
        }
        return (low + high) / 2
    }
}
