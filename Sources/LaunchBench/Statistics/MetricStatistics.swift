import Foundation

/// The numbers of one metric over a group of launches (one device, one launch kind).
///
/// Only measured values count: a failed launch adds to `failures` and a launch that did not
/// measure this metric adds nothing. Every statistic of an empty sample is `nil` (an empty
/// cell), never 0.
package struct MetricStatistics: Sendable, Hashable {
    /// How many launches measured this metric.
    package var n: Int
    /// Failed launches in the group (status `timeout`, `crashed`, `install-failed`, …).
    package var failures: Int
    /// Smallest measured value, in ms; `nil` when n = 0.
    package var min: Double?
    /// 25th percentile (linear interpolation, see `Percentile`), in ms; `nil` when n = 0.
    package var p25: Double?
    /// Median (50th percentile), in ms; `nil` when n = 0.
    package var median: Double?
    /// Arithmetic mean, in ms; `nil` when n = 0.
    package var mean: Double?
    /// 75th percentile, in ms; `nil` when n = 0.
    package var p75: Double?
    /// 90th percentile, in ms (between the two largest values when n < 10); `nil` when n = 0.
    package var p90: Double?
    /// Largest measured value, in ms; `nil` when n = 0.
    package var max: Double?
    /// Sample standard deviation (divisor n − 1); `nil` for n < 2.
    package var stddev: Double?
    /// Coefficient of variation, `100 · stddev / mean`; `nil` when either is missing or the mean is 0.
    package var cvPercent: Double?
    /// Distribution-free 95 % interval of the median; `nil` when n < 6 (see `MedianConfidenceInterval`).
    package var ci95: MedianConfidenceInterval?
    /// - Parameters:
    ///   - values: the measured values, in launch order (no failures, no missing values).
    ///   - failures: failed launches of the same group.
    package init(values: [Double], failures: Int) {
        self.failures = failures
        n = values.count
        guard !values.isEmpty else { return }
        let sorted = values.sorted()
        min = sorted.first
        max = sorted.last
        p25 = Percentile.of(sorted: sorted, fraction: 0.25)
        median = Percentile.of(sorted: sorted, fraction: 0.5)
        p75 = Percentile.of(sorted: sorted, fraction: 0.75)
        p90 = Percentile.of(sorted: sorted, fraction: 0.90)
        let mean = Self.mean(sorted)
        self.mean = mean
        if n >= 2 {
            // Two-pass with compensation: stable even when the spread is tiny relative to the mean.
            var sumSquares = 0.0
            var sumDeviations = 0.0
            for value in values {
                let d = value - mean
                sumSquares += d * d
                sumDeviations += d
            }
            let variance = (sumSquares - sumDeviations * sumDeviations / Double(n)) / Double(n - 1)
            let stddev = Foundation.sqrt(Swift.max(0, variance))
            self.stddev = stddev
            if mean != 0 { cvPercent = 100 * stddev / Swift.abs(mean) }
        }
        ci95 = MedianConfidenceInterval(sorted: sorted, level: 0.95)
    }

    /// The value of a named statistic (the summary.csv column names), for exporters.
    package func value(of statistic: Statistic) -> Double? {
        switch statistic {
        case .min: return min
        case .p25: return p25
        case .median: return median
        case .mean: return mean
        case .p75: return p75
        case .p90: return p90
        case .max: return max
        case .stddev: return stddev
        case .cvPercent: return cvPercent
        case .ci95Low: return ci95?.low
        case .ci95High: return ci95?.high
        }
    }

    /// Mean by summing ascending values (less rounding error than launch order).
    private static func mean(_ sorted: [Double]) -> Double {
        // Kahan summation keeps the mean within an ulp or two for long runs.
        var sum = 0.0
        var compensation = 0.0
        for value in sorted {
            let y = value - compensation
            let t = sum + y
            compensation = (t - sum) - y
            sum = t
        }
        return sum / Double(sorted.count)
    }
}

/// A column of `summary.csv` that holds a number computed from the values.
package enum Statistic: String, Sendable, Hashable, CaseIterable {
    case min, p25, median, mean, p75, p90, max, stddev
    case cvPercent = "cv_percent"
    case ci95Low = "ci95_low"
    case ci95High = "ci95_high"
}
