extension HTMLReport {
    /// "Against the baseline" (`run --baseline B`, `report DIR --baseline B`): the gate's own report rendered, not
    /// recomputed — per device × kind × metric the verdict with the smallest change the launches could show, then
    /// why each device × kind moved (phases, images, initializer functions, page-ins, new dylibs and functions).
    /// Empty when the report compared with no baseline.
    static func baselineSection(_ report: GateReport?) -> String {
        guard let report, let comparison = report.comparison else { return "" }
        var content = "<h2>Against the baseline</h2>" + HTMLText.text("p", ["class": "sub"], report.headline)
        if let baseline = report.baselinePath {
            content += HTMLText.element(
                "p", [:], HTMLText.escape("Baseline: ") + HTMLText.text("code", baseline))
        }
        content += HTMLText.text("p", ["class": "remark"], GateText.settingsLine(comparison.settings))
        if comparison.entries.isEmpty {
            content += HTMLText.text("p", ["class": "empty"], "No device of this run matches the baseline.")
        } else {
            content += verdictTable(comparison.entries)
        }
        content += whyItMoved(comparison.entries)
        if let violations = report.dylibViolations, !violations.isEmpty {
            let items = violations.map {
                HTMLText.element("li", [:], HTMLText.text("code", $0.image) + HTMLText.escape(": " + $0.description))
            }
            content += "<h3>Dylib guard</h3>" + HTMLText.element("ul", [:], items.joined())
        }
        let notes = report.referenceGaps.map(\.sentence) + report.notes + comparison.notes
        if !notes.isEmpty {
            content += "<h3>Notes</h3>" + HTMLText.element("ul", [:], notes.map { HTMLText.text("li", $0) }.joined())
        }
        return HTMLText.element("section", ["class": "baseline"], content) + "\n"
    }

    /// One row per entry: both sides, the changes, the smallest visible change and the verdict; each entry that is
    /// not unchanged says why below the table.
    private static func verdictTable(_ entries: [GateEntry]) -> String {
        let titles = [
            "device", "kind", "metric", "baseline ms", "current ms", "median", "shift [interval]", "p",
            "smallest visible", "verdict",
        ]
        let head = "<thead><tr>" + titles.map { HTMLText.text("th", $0) }.joined() + "</tr></thead>"
        let rows = entries.map { entry in
            let smallest = entry.smallestVisiblePercent.map { "±" + DecimalText.fixed($0, maxFractionDigits: 1) + " %" }
            let cells = [
                GateText.device(entry), entry.kind.rawValue, entry.metric.rawValue, GateText.side(entry.baseline),
                GateText.side(entry.current), GateText.signedPercent(entry.medianChangePercent),
                "\(GateText.signedPercent(entry.shiftPercent)) \(GateText.interval(entry.shiftLowPercent, entry.shiftHighPercent))",
                GateText.pValue(entry.test?.pValue), smallest ?? "–",
            ]
            let verdict = HTMLText.text(
                "td", entry.verdict == .regression ? ["class": "bad"] : [:], GateText.verdict(entry.verdict))
            return HTMLText.element(
                "tr", [:],
                cells.enumerated().map { index, cell in
                    HTMLText.text("td", index < 3 ? ["class": "text"] : [:], cell)
                }.joined() + verdict)
        }
        var html = HTMLText.element(
            "div", ["class": "scroll"],
            HTMLText.element("table", ["class": "summary"], head + "<tbody>" + rows.joined() + "</tbody>"))
        let reasons = entries.filter { $0.verdict != .unchanged || !$0.changes.isEmpty }.map { entry in
            HTMLText.element(
                "li", [:],
                HTMLText.text("strong", GateText.verdict(entry.verdict))
                    + HTMLText.escape(" \(entry.title): \(entry.reason)"))
        }
        if !reasons.isEmpty { html += HTMLText.element("ul", [:], reasons.joined()) }
        return html
    }

    /// Per device × kind (the explanation is one for all its metrics), why it moved: in full when a metric moved
    /// past the threshold, else only the images, functions and page-ins that changed by themselves.
    private static func whyItMoved(_ entries: [GateEntry]) -> String {
        var seen: Set<[String]> = []
        var blocks: [String] = []
        for entry in entries where entry.verdict != .insufficientData && entry.verdict != .notComparable {
            guard let explanation = entry.explanation,
                seen.insert([entry.currentDevice.udid, entry.kind.rawValue]).inserted
            else { continue }
            let moved = entries.first {
                $0.currentDevice.udid == entry.currentDevice.udid && $0.kind == entry.kind
                    && ($0.verdict == .regression || $0.verdict == .improvement)
            }
            let title = "\(GateText.device(entry)) · \(entry.kind.rawValue)"
            if let block = explanationBlock(
                explanation, title: title, sentence: moved?.explanationSentence, withPhases: moved != nil)
            {
                blocks.append(block)
            }
        }
        return blocks.isEmpty ? "" : "<h3>What changed</h3>" + blocks.joined()
    }

    /// What one device × kind's explanation names, as a heading and a list: phases (when `withPhases`), new and
    /// changed images, new and changed initializer functions (their names in `<code>`), page-ins. `nil` when it
    /// names nothing. Shared by the baseline section and an A/B run's, so both say it alike.
    static func explanationBlock(
        _ explanation: GateExplanation, title: String, sentence: String?, withPhases: Bool
    ) -> String? {
        var items: [String] = []
        if withPhases {
            items += explanation.phases.map { phase in
                let interval =
                    phase.shift.low.flatMap { low in
                        phase.shift.high.map {
                            " [\(GateExplanation.signedMs(low).dropLast(3)), \(GateExplanation.signedMs($0).dropLast(3))]"
                        }
                    } ?? ""
                return HTMLText.escape(
                    "phase \(phase.phase): \(GateExplanation.signedMs(phase.shift.shift))\(interval) "
                        + "(n=\(phase.baselineN)/\(phase.currentN))")
            }
        }
        items += explanation.images.map { change in
            var text = GateExplanation.describe(change)
            if change.change == .changed {
                text += " (median \(GateText.ms(change.baselineMedianMs)) → \(GateText.ms(change.currentMedianMs)) ms)"
            }
            return HTMLText.escape(text)
        }
        items += explanation.functions.map(functionItem)
        if let pageIns = explanation.pageIns {
            let sides =
                "median \(DecimalText.fixed(pageIns.baselineMedian, maxFractionDigits: 1)) → "
                + DecimalText.fixed(pageIns.currentMedian, maxFractionDigits: 1)
            items.append(HTMLText.escape("\(pageIns.text) from exec to first frame (\(sides))"))
        }
        guard !items.isEmpty else { return nil }
        var heading = HTMLText.text("strong", title)
        if let sentence { heading += HTMLText.escape(": " + sentence) }
        return HTMLText.element(
            "div", ["class": "why"],
            HTMLText.element("p", [:], heading)
                + HTMLText.element("ul", [:], items.map { HTMLText.element("li", [:], $0) }.joined()))
    }

    /// `<code>+[AnalyticsSDK load]</code> +18.2 ms in SampleKit (median 2.1 → 20.3 ms)`, or `new initializer
    /// <code>…</code> in … (3.0 ms)`: the function's words as ``GateExplanation/FunctionChange/text`` says them.
    private static func functionItem(_ change: GateExplanation.FunctionChange) -> String {
        let name = HTMLText.text("code", change.function)
        guard let base = change.baselineMedianMs else {
            return HTMLText.escape("new initializer ") + name
                + HTMLText.escape(" in \(change.image) (\(GateText.ms(change.currentMedianMs)) ms)")
        }
        return name
            + HTMLText.escape(
                " \(GateExplanation.signedMs(change.deltaMs)) in \(change.image) "
                    + "(median \(GateText.ms(base)) → \(GateText.ms(change.currentMedianMs)) ms)")
    }
}
