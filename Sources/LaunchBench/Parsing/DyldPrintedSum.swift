/// What a time dyld printed says about the time it measured.
///
/// dyld's `printTime` truncates, never rounds (dyld-852.2 src/ImageLoader.cpp:1681–1709; the same function
/// in dyld-360.22 :1031–1054 and every version between): under 1 s to 0.01 ms (1691–1692), from 1 s on to
/// 0.1 s (1703–1704), and the percentage of the block's total to 0.1 % (1693, 1705). So `1.3 seconds
/// (92.0%)` is anything from 1300 up to 1400 ms that is from 92.0 up to 92.1 % of the total.
struct MsBounds: Equatable {
    var low: Double
    var high: Double

    static let exact = MsBounds(low: 0, high: 0)

    /// The interval a printed value stands for.
    init(printed ms: Double, inSeconds: Bool) {
        low = ms
        high = ms + (inSeconds ? 100 : 0.01)
    }

    init(low: Double, high: Double) {
        self.low = low
        self.high = high
    }

    var middle: Double { (low + high) / 2 }

    /// Narrows to the part that also lies in [low, high].
    mutating func narrow(low: Double, high: Double) {
        self.low = max(self.low, low)
        self.high = min(self.high, high)
    }
}

/// One sum dyld's counters obey, `total = Σ parts + unprinted`, with every value as dyld printed it,
/// narrowed until the sum, the parts and their percentages of the total agree (interval constraint
/// propagation). Used where dyld printed a value in seconds: the sum of finer parts, or a part's
/// percentage, then says more about it than its one decimal of seconds.
struct DyldPrintedSum {
    /// Every value's interval; index 0 is the total the percentages are of.
    private(set) var values: [MsBounds]
    /// Each value's printed percentage of the total, in tenths (`nil`: none, or the total's own 100.0).
    let percents: [Int?]
    /// The values whose sum (plus `unprinted`) is the total.
    let parts: [Int]
    /// What the total holds that no printed part shows (the summary leaves out DOF registration).
    let unprinted: MsBounds

    init(values: [MsBounds], percents: [Int?], parts: [Int], unprinted: MsBounds = .exact) {
        self.values = values
        self.percents = percents
        self.parts = parts
        self.unprinted = unprinted
    }

    /// Narrows every value; `false` when the printed values cannot all hold (an edited capture).
    mutating func narrow() -> Bool {
        for _ in 0..<5000 {
            let before = values
            var lowSum = unprinted.low
            var highSum = unprinted.high
            for i in parts {
                lowSum += values[i].low
                highSum += values[i].high
            }
            values[0].narrow(low: lowSum, high: highSum)
            for (i, percent) in percents.enumerated() where i > 0 {
                guard let p = percent.map(Double.init) else { continue }
                // p ≤ 1000·value/total < p + 1, as printTime's `(partTime*1000)/totalTime`.
                values[0].narrow(
                    low: values[i].low * 1000 / (p + 1), high: p > 0 ? values[i].high * 1000 / p : .infinity)
                values[i].narrow(low: p * values[0].low / 1000, high: (p + 1) * values[0].high / 1000)
            }
            for i in parts {
                values[i].narrow(
                    low: values[0].low - (highSum - values[i].high),
                    high: values[0].high - (lowSum - values[i].low))
            }
            if values.contains(where: { $0.low > $0.high + 1e-9 }) { return false }
            // A percentage and the sum can chase each other down by a factor near 1 per pass: stop when settled.
            let moved = zip(values, before).map { max(abs($0.low - $1.low), abs($0.high - $1.high)) }.max() ?? 0
            if !(moved > 1e-7) { break }
        }
        return true
    }

    /// A value's best single figure: as printed (to 0.01 ms) when printed in ms, else the middle of its bounds;
    /// the total, when printed in seconds, as the sum of its parts' figures, kept within its bounds.
    func figure(_ index: Int, inSeconds: [Bool], printed: [Double]) -> Double {
        guard inSeconds[index] else { return printed[index] }
        if index == 0 {
            let sum = parts.reduce(unprinted.low) { $0 + figure($1, inSeconds: inSeconds, printed: printed) }
            return min(max(sum, values[0].low), values[0].high)
        }
        return values[index].middle
    }
}
