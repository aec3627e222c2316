/// Number formats shared by the gate's renderers (locale-independent, see `DecimalText`).
enum GateText {
    static func ms(_ value: Double?) -> String { value.map { DecimalText.exact($0, fractionDigits: 1) } ?? "–" }

    static func signedPercent(_ value: Double?) -> String {
        guard let value else { return "–" }
        let text = DecimalText.exact(value, fractionDigits: 1)
        return (value >= 0 && !text.hasPrefix("-") ? "+" : "") + text + " %"
    }

    static func interval(_ low: Double?, _ high: Double?) -> String {
        guard let low, let high else { return "" }
        return "[\(signedPercent(low).dropLast(2)), \(signedPercent(high).dropLast(2))]"
    }

    static func pValue(_ p: Double?) -> String {
        guard let p else { return "–" }
        return p < 0.0001 ? "< 0.0001" : DecimalText.exact(p, fractionDigits: 4)
    }

    /// `p = 0.1841` or `p < 0.0001`, for sentences.
    static func pPhrase(_ p: Double?) -> String {
        let text = pValue(p)
        return text.hasPrefix("<") ? "p " + text : "p = " + text
    }

    static func side(_ side: GateSide) -> String {
        let failed = side.failures > 0 ? ", \(side.failures) failed" : ""
        return "\(ms(side.median)) (n=\(side.values.count)\(failed))"
    }

    static func verdict(_ verdict: GateVerdict) -> String {
        switch verdict {
        case .regression: return "REGRESSION"
        case .improvement: return "improvement"
        case .unchanged: return "unchanged"
        case .insufficientData: return "insufficient data"
        case .notComparable: return "not comparable"
        }
    }

    static func settingsLine(_ settings: GateSettings) -> String {
        let level = DecimalText.fixed((1 - settings.alpha) * 100, maxFractionDigits: 1)
        return
            "Threshold ±\(DecimalText.fixed(settings.thresholdPercent, maxFractionDigits: 2)) % of the baseline median; "
            + "two-sided Mann–Whitney U test at α = \(DecimalText.fixed(settings.alpha, maxFractionDigits: 3)); "
            + "shift = Hodges–Lehmann estimate with its \(level) % interval; at least \(settings.minimumLaunches) launches per side."
            + sequentialSentence(settings)
    }

    /// `--until-verdict`: how the verdicts below were reached (the table's interval is the fixed-sample one).
    static func sequentialSentence(_ settings: GateSettings) -> String {
        guard let design = settings.sequential else { return "" }
        return " Sequential (--until-verdict): a look after each launch from \(design.minimumLaunches) to "
            + "\(design.maxLaunches), each with a repeated interval of O'Brien–Fleming alpha spending; the verdicts "
            + "are those of the last look (below)."
    }

    static func device(_ entry: GateEntry) -> String {
        entry.matchedBy == .udid
            ? entry.currentDevice.name : "\(entry.currentDevice.name) ≈ \(entry.baselineDevice.name)"
    }

    /// One line per phase (shift with its interval) and per image change, for the table and Markdown.
    static func explanationLines(_ explanation: GateExplanation) -> [String] {
        var lines = explanation.phases.map { phase in
            let interval =
                phase.shift.low.flatMap { low in
                    phase.shift.high.map {
                        " [\(GateExplanation.signedMs(low).dropLast(3)), \(GateExplanation.signedMs($0).dropLast(3))]"
                    }
                } ?? " (too few launches for an interval)"
            return
                "\(phase.phase): \(GateExplanation.signedMs(phase.shift.shift))\(interval) (n=\(phase.baselineN)/\(phase.currentN))"
        }
        lines += explanation.images.map { change in
            guard change.change == .changed else { return GateExplanation.describe(change) }
            let sides = "median \(ms(change.baselineMedianMs)) → \(ms(change.currentMedianMs)) ms"
            return "\(GateExplanation.describe(change)) (\(sides))"
        }
        lines += explanation.functions.map { change in
            guard let base = change.baselineMedianMs else { return change.text }
            return "\(change.text) in \(change.image) (median \(ms(base)) → \(ms(change.currentMedianMs)) ms)"
        }
        if let pageIns = explanation.pageIns {
            let sides =
                "median \(DecimalText.fixed(pageIns.baselineMedian, maxFractionDigits: 1)) → \(DecimalText.fixed(pageIns.currentMedian, maxFractionDigits: 1))"
            lines.append("\(pageIns.text) from exec to first frame (\(sides))")
        }
        if explanation.images.contains(where: { $0.change == .changed }) {
            lines.append("Initializer medians are over the launches whose dyld list named the image.")
        }
        return lines
    }
}
