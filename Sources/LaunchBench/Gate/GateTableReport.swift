/// The gate's report as plain text for terminals and CI logs.
package enum GateTableReport {
    /// The report as plain-text tables for a terminal or CI log.
    package static func render(_ report: GateReport) -> String {
        var lines: [String] = []
        var tableLines: Set<Int> = []  // the rendered tables, whose cells are escaped one by one
        if let baseline = report.baselinePath { lines.append("Baseline: \(baseline)") }
        if let current = report.currentPath { lines.append("Current:  \(current)") }
        if let comparison = report.comparison {
            lines.append(GateText.settingsLine(comparison.settings))
            lines.append("")
            var table = TextTable(
                headers: [
                    "device", "kind", "metric", "baseline ms", "current ms", "median", "shift [95 % CI]", "p",
                    "verdict",
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
            if !comparison.entries.isEmpty { tableLines.insert(lines.count) }
            lines.append(comparison.entries.isEmpty ? "No device × launch kind to compare." : table.render())
            let explained = comparison.entries.filter {
                $0.verdict != .unchanged || $0.moreLaunchesWouldTell || $0.sequential != nil
                    || !$0.changes.isEmpty
            }
            if !explained.isEmpty {
                lines.append("")
                for entry in explained {
                    lines.append("\(GateText.verdict(entry.verdict)): \(entry.title): \(entry.reason)")
                }
            }
            let why = comparison.entries.filter { $0.verdict == .regression || $0.verdict == .improvement }
            for entry in why {
                guard let explanation = entry.explanation else { continue }
                lines.append("")
                lines.append("Why \(entry.title) moved: \(entry.explanationSentence ?? "no phase or image data")")
                for line in GateText.explanationLines(explanation) { lines.append("  " + line) }
            }
        }
        if let paired = report.paired {
            if report.comparison != nil { lines.append("") }
            lines.append(PairedText.headerLine(paired))
            lines.append("")
            var table = TextTable(
                headers: PairedText.headers,
                alignments: [.left, .left, .left, .right, .right, .right, .right, .right, .left])
            for entry in paired.entries { table.append(PairedText.cells(entry)) }
            if !paired.entries.isEmpty { tableLines.insert(lines.count) }
            lines.append(paired.entries.isEmpty ? "No pairs of the two builds to judge." : table.render())
            lines.append("")
            for entry in paired.entries { lines.append(PairedText.line(entry)) }
        }
        if let violations = report.dylibViolations {
            lines.append("")
            if violations.isEmpty {
                lines.append("Dylib guard: every image loaded from the app bundle is in the allowed list.")
            } else {
                lines.append("Dylib guard: \(violations.count) image(s) not in the allowed list:")
                for violation in violations { lines.append("  \(violation.description)") }
            }
        }
        if !report.referenceGaps.isEmpty {
            lines.append("")
            lines.append("Reference app:")
            for gap in report.referenceGaps { lines.append("  \(gap.sentence)") }
        }
        if !report.sampleSizes.isEmpty {
            lines.append("")
            lines.append("Adaptive sample size:")
            for line in report.sampleSizes { lines.append("  \(line)") }
        }
        let notes = report.notes + (report.comparison?.notes ?? []) + (report.paired?.notes ?? [])
        if !notes.isEmpty {
            lines.append("")
            lines.append("Notes:")
            for note in notes { lines.append("  - \(note)") }
        }
        lines.append("")
        lines.append(report.headline)
        // Every line holds names and paths of the user's: each stays one line (the table's cells already are).
        return lines.indices.map { tableLines.contains($0) ? lines[$0] : UserText.logLine(lines[$0]) }
            .joined(separator: "\n") + "\n"
    }
}
