/// The gate's report as plain text for terminals and CI logs.
package enum GateTableReport {
    /// The report as plain-text tables for a terminal or CI log.
    package static func render(_ report: GateReport) -> String {
        var text = ReportLines()
        if let baseline = report.baselinePath { text.append("Baseline: \(baseline)") }
        if let current = report.currentPath { text.append("Current:  \(current)") }
        if let comparison = report.comparison { appendComparison(comparison, to: &text) }
        if let paired = report.paired {
            if report.comparison != nil { text.append("") }
            appendPaired(paired, to: &text)
        }
        if let violations = report.dylibViolations {
            text.append("")
            if violations.isEmpty {
                text.append("Dylib guard: every image loaded from the app bundle is in the allowed list.")
            } else {
                text.append("Dylib guard: \(violations.count) image(s) not in the allowed list:")
                for violation in violations { text.append("  \(violation.description)") }
            }
        }
        text.appendSection("Reference app:", report.referenceGaps.map(\.sentence), bullet: "  ")
        text.appendSection("Adaptive sample size:", report.sampleSizes, bullet: "  ")
        text.appendSection(
            "Notes:", report.notes + (report.comparison?.notes ?? []) + (report.paired?.notes ?? []), bullet: "  - ")
        text.append("")
        text.append(report.headline)
        return text.rendered()
    }

    /// The baseline comparison: settings, the table, one line per entry worth a word, and why each mover moved.
    private static func appendComparison(_ comparison: GateComparison, to text: inout ReportLines) {
        text.append(GateText.settingsLine(comparison.settings))
        text.append("")
        var table = TextTable(
            headers: [
                "device", "kind", "metric", "baseline ms", "current ms", "median", "shift [95 % CI]", "p", "verdict",
            ],
            alignments: [.left, .left, .left, .right, .right, .right, .right, .right, .left])
        for entry in comparison.entries {
            table.append([
                GateText.device(entry), entry.kind.rawValue, entry.metric.rawValue, GateText.side(entry.baseline),
                GateText.side(entry.current), GateText.signedPercent(entry.medianChangePercent),
                [
                    GateText.signedPercent(entry.shiftPercent),
                    GateText.interval(entry.shiftLowPercent, entry.shiftHighPercent),
                ]
                .filter { !$0.isEmpty }.joined(separator: " "),
                GateText.pValue(entry.test?.pValue), GateText.verdict(entry.verdict),
            ])
        }
        text.append(table: table, ifEmpty: "No device × launch kind to compare.")
        let explained = comparison.entries.filter {
            $0.verdict != .unchanged || $0.moreLaunchesWouldTell || $0.sequential != nil || !$0.changes.isEmpty
        }
        if !explained.isEmpty {
            text.append("")
            for entry in explained {
                text.append("\(GateText.verdict(entry.verdict)): \(entry.title): \(entry.reason)")
            }
        }
        for entry in comparison.entries where entry.verdict == .regression || entry.verdict == .improvement {
            guard let explanation = entry.explanation else { continue }
            text.append("")
            text.append("Why \(entry.title) moved: \(entry.explanationSentence ?? "no phase or image data")")
            for line in GateText.explanationLines(explanation) { text.append("  " + line) }
        }
    }

    /// The A/B run: its header, the table and one sentence per entry.
    private static func appendPaired(_ paired: PairedComparison, to text: inout ReportLines) {
        text.append(PairedText.headerLine(paired))
        text.append("")
        var table = TextTable(
            headers: PairedText.headers,
            alignments: [.left, .left, .left, .right, .right, .right, .right, .right, .left])
        for entry in paired.entries { table.append(PairedText.cells(entry)) }
        text.append(table: table, ifEmpty: "No pairs of the two builds to judge.")
        text.append("")
        for entry in paired.entries { text.append(PairedText.line(entry)) }
    }
}

/// The text report's lines, each kept to one line when rendered except the tables, whose cells are
/// already escaped one by one (`TextTable.append`).
private struct ReportLines {
    private var lines: [String] = []
    private var tableLines: Set<Int> = []

    mutating func append(_ line: String) { lines.append(line) }

    /// The table, or `placeholder` when it has no rows.
    mutating func append(table: TextTable, ifEmpty placeholder: String) {
        if table.rows.isEmpty {
            lines.append(placeholder)
        } else {
            tableLines.insert(lines.count)
            lines.append(table.render())
        }
    }

    /// A blank line, `title` and one line per item after `bullet`; nothing when there are no items.
    mutating func appendSection(_ title: String, _ items: [String], bullet: String) {
        guard !items.isEmpty else { return }
        lines.append("")
        lines.append(title)
        for item in items { lines.append(bullet + item) }
    }

    /// Every line holds names and paths of the user's: each stays one line (the tables' cells already are).
    func rendered() -> String {
        lines.indices.map { tableLines.contains($0) ? lines[$0] : UserText.logLine(lines[$0]) }
            .joined(separator: "\n") + "\n"
    }
}
