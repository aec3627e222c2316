/// Percentiles of a sorted sample, by linear interpolation between order statistics.
///
/// This is Hyndman & Fan's definition 7: numpy's default (`numpy.percentile(x, q)`), R's default
/// (`quantile(type = 7)`) and spreadsheets' `PERCENTILE` / `PERCENTILE.INC`. For `n` sorted values
/// `x[0] ≤ … ≤ x[n-1]` and a fraction `p` in 0…1, let `h = (n − 1)·p`; the percentile is
/// `x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋])`. So p0 is the minimum, p100 the maximum, p50 the usual
/// median, and every result lies between two measured values. With fewer than 10 values p90 sits
/// between the two largest; a high percentile of a small sample is close to the maximum.
package enum Percentile {
    /// The `p`-quantile of `sorted` (ascending, not empty); `p` is a fraction in 0…1.
    package static func of(sorted: [Double], fraction p: Double) -> Double {
        precondition(!sorted.isEmpty, "percentile of an empty sample")
        precondition((0...1).contains(p), "percentile fraction \(p) outside 0…1")
        let h = Double(sorted.count - 1) * p
        let lower = Int(h.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let weight = h - Double(lower)
        // Written as a + w·(b − a) so equal neighbours give that exact value back.
        return sorted[lower] + weight * (sorted[upper] - sorted[lower])
    }
}
