/// A value read from dyld's statistics that dyld printed (or that derives from a value printed) in seconds, so
/// that only bounds are certain: `total_premain_ms` 1367.28 with "dyld printed 1.3 s; parts sum to 1367.28 ms".
package struct PrintedBounds: Sendable, Hashable, Codable {
    /// The value's metric (`total_premain_ms`, …).
    package var metric: Metric
    /// What the printed times allow, ms: the value recorded lies between the two.
    package var lowMs: Double
    package var highMs: Double
    /// Where the value and its bounds come from, for people.
    package var note: String

    /// Bounds of one metric's value.
    package init(metric: Metric, lowMs: Double, highMs: Double, note: String) {
        self.metric = metric
        self.lowMs = lowMs
        self.highMs = highMs
        self.note = note
    }
}

/// Reads a statistics block's values to the precision dyld had (see `MsBounds`, `DyldPrintedSum`).
enum DyldPrecision {
    /// One metric as a signed sum of a block's values; other sums equal to it (`alternatives`) narrow its bounds.
    struct Formula {
        let metric: Metric
        let terms: [(index: Int, sign: Double)]
        var alternatives: [[(index: Int, sign: Double)]] = []
    }

    enum Outcome {
        /// Nothing printed in seconds, or a value that is no measurement (the wrap artefact): read as printed.
        case asPrinted
        case read(values: [Metric: Double], bounds: [PrintedBounds])
        /// The printed values cannot all hold; read as printed, with this warning.
        case inconsistent(String)
    }

    /// The summary leaves out DOF registration (dyld-852.2 src/ImageLoader.cpp:1735–1737 adds `fgTotalDOF` to
    /// the total; 1739–1742 print four parts without it). The captures that print it show 0.00, 0.17 and
    /// 0.24 ms (Fixtures/dyld 16, 14, 12): up to 1 ms is allowed for.
    static let summaryUnprintedDOF = MsBounds(low: 0, high: 1)

    /// The note every launch read this way carries, the same text each time so that reports count it once.
    static let warning =
        "dyld printed times of 1 s and over in tenths of a second; they are read to dyld's precision from the"
        + " finer parts and percentages it printed (bounds in `launchbench parse --format json`)"

    /// - Parameters:
    ///   - times: the block's printed values, index 0 its total (the one the percentages are of).
    ///   - labels: how dyld labels each, for notes.
    static func read(
        _ times: [DyldTime?], labels: [String], parts: [Int], unprinted: MsBounds = .exact, formulas: [Formula]
    ) -> Outcome {
        guard times.contains(where: { $0?.inSeconds == true }) else { return .asPrinted }
        var printed: [Double] = []
        for time in times {
            guard let value = time?.value else { return .asPrinted }
            printed.append(value)
        }
        let inSeconds = times.map { $0?.inSeconds == true }
        var sum = DyldPrintedSum(
            values: zip(printed, inSeconds).map { MsBounds(printed: $0, inSeconds: $1) },
            percents: times.enumerated().map { $0.offset == 0 ? nil : $0.element?.percentTenths }, parts: parts,
            unprinted: unprinted)
        guard sum.narrow() else {
            return .inconsistent(
                "dyld's printed times do not add up to its total within dyld's precision; read as printed")
        }
        var values: [Metric: Double] = [:]
        var bounds: [PrintedBounds] = []
        for formula in formulas {
            let sums = [formula.terms] + formula.alternatives
            guard sums.joined().contains(where: { inSeconds[$0.index] }) else { continue }
            var range = MsBounds(low: -.infinity, high: .infinity)
            for terms in sums {
                let low = terms.reduce(0) { $0 + ($1.sign > 0 ? sum.values[$1.index].low : -sum.values[$1.index].high) }
                let high = terms.reduce(0) {
                    $0 + ($1.sign > 0 ? sum.values[$1.index].high : -sum.values[$1.index].low)
                }
                range.narrow(low: low, high: high)
            }
            let figure = formula.terms.reduce(0) {
                $0 + $1.sign * sum.figure($1.index, inSeconds: inSeconds, printed: printed)
            }
            let value = DyldNumbers.roundedToHundredths(min(max(figure, range.low), range.high))
            values[formula.metric] = value
            let low = DyldNumbers.roundedToHundredths(range.low)
            let high = DyldNumbers.roundedToHundredths(range.high)
            bounds.append(
                PrintedBounds(
                    metric: formula.metric, lowMs: low, highMs: high,
                    note: note(formula, times: times, labels: labels, parts: parts, value: value, low: low, high: high)
                ))
        }
        return .read(values: values, bounds: bounds)
    }

    private static func note(
        _ formula: Formula, times: [DyldTime?], labels: [String], parts: [Int], value: Double, low: Double,
        high: Double
    ) -> String {
        let range = "\(NoteNumber.text(low))–\(NoteNumber.text(high)) ms"
        guard formula.terms.count == 1, let only = formula.terms.first, let time = times[only.index] else {
            return "derived from times dyld printed in seconds; read as \(NoteNumber.text(value)) ms (\(range))"
        }
        let seconds = "\(NoteNumber.text((time.value ?? 0) / 1000)) s"
        if only.index == 0, parts.allSatisfy({ times[$0]?.inSeconds == false }) {
            let sum = DyldNumbers.roundedToHundredths(parts.reduce(0) { $0 + (times[$1]?.value ?? 0) })
            let note = "dyld printed \(seconds); parts sum to \(NoteNumber.text(sum)) ms"
            // The summary's percentages are of a total that holds the DOF time as well.
            return value == sum ? note : note + "; with the percentages, \(range)"
        }
        if only.index == 0 { return "dyld printed \(seconds); its parts and their percentages put it at \(range)" }
        let percent = time.percentTenths.map { " (\($0 / 10).\($0 % 10) %)" } ?? ""
        return "dyld printed \(labels[only.index]) \(seconds)\(percent); the other times and percentages put it at"
            + " \(range)"
    }
}

/// Numbers in notes: at most two decimals, no trailing zeros (`1.3`, `1367.28`).
enum NoteNumber {
    static func text(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let sign = hundredths < 0 ? "-" : ""
        let whole = abs(hundredths) / 100
        let fraction = abs(hundredths) % 100
        if fraction == 0 { return "\(sign)\(whole)" }
        if fraction % 10 == 0 { return "\(sign)\(whole).\(fraction / 10)" }
        return "\(sign)\(whole).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
