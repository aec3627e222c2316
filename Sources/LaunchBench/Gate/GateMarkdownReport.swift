/// The gate's report as GitHub-flavoured Markdown, for CI job summaries (`$GITHUB_STEP_SUMMARY`)
/// and merge-request comments.
package enum GateMarkdownReport {
    /// The report as Markdown: verdict, table of entries, explanations, dylib guard, notes.
    package static func render(_ report: GateReport) -> String {
        var out = "## launchbench gate: \(outcomeWord(report.outcome))\n\n"
        out += escape(report.headline) + "\n\n"
        if let baseline = report.baselinePath, let current = report.currentPath {
            out += "Baseline `\(code(baseline))` → current `\(code(current))`.\n\n"
        }
        if let comparison = report.comparison { out += comparisonSection(comparison) }
        if let paired = report.paired { out += pairedSection(paired) }
        if let violations = report.dylibViolations {
            out +=
                violations.isEmpty
                ? "### Dylib guard\n\nEvery image loaded from the app bundle is in the allowed list.\n\n"
                : listSection("Dylib guard", violations.map { "`\(code($0.image))`: \(escape($0.description))" })
        }
        out += listSection("Reference app", report.referenceGaps.map { escape($0.sentence) })
        out += listSection("Adaptive sample size", report.sampleSizes.map(escape))
        out += listSection(
            "Notes", (report.notes + (report.comparison?.notes ?? []) + (report.paired?.notes ?? [])).map(escape))
        return out
    }

    /// The baseline comparison: settings, the table, and each entry that is not unchanged with why it moved.
    private static func comparisonSection(_ comparison: GateComparison) -> String {
        var out = escape(GateText.settingsLine(comparison.settings)) + "\n\n"
        if !comparison.entries.isEmpty {
            out += "| Device | Kind | Metric | Baseline ms | Current ms | Median | Shift [95 % CI] | p | Verdict |\n"
            out += "|---|---|---|---:|---:|---:|---:|---:|---|\n"
            for entry in comparison.entries {
                let verdict = entry.verdict == .regression ? "**REGRESSION**" : GateText.verdict(entry.verdict)
                let cells = [
                    escape(GateText.device(entry)), entry.kind.rawValue, "`\(entry.metric.rawValue)`",
                    GateText.side(entry.baseline), GateText.side(entry.current),
                    GateText.signedPercent(entry.medianChangePercent),
                    "\(GateText.signedPercent(entry.shiftPercent)) \(GateText.interval(entry.shiftLowPercent, entry.shiftHighPercent))",
                    GateText.pValue(entry.test?.pValue), verdict,
                ]
                out += "| " + cells.joined(separator: " | ") + " |\n"
            }
            out += "\n"
        }
        for entry in comparison.entries where entry.verdict != .unchanged {
            out += "- **\(GateText.verdict(entry.verdict))** \(escape(entry.title)): \(escape(entry.reason))"
            if entry.verdict != .insufficientData, let why = entry.explanationSentence {
                out += " Why: \(escape(why))"
            }
            out += "\n"
            if entry.verdict != .insufficientData, let explanation = entry.explanation {
                for line in GateText.explanationLines(explanation) { out += "  - \(escape(line))\n" }
            }
        }
        if comparison.entries.contains(where: { $0.verdict != .unchanged }) { out += "\n" }
        return out
    }

    /// The A/B run: its header, the table and one sentence per entry.
    private static func pairedSection(_ paired: PairedComparison) -> String {
        var out = "### A/B, paired\n\n" + escape(PairedText.headerLine(paired)) + "\n\n"
        if !paired.entries.isEmpty {
            out += "| " + PairedText.headers.joined(separator: " | ") + " |\n"
            out += "|---|---|---|---:|---:|---:|---:|---:|---|\n"
            for entry in paired.entries {
                var cells = PairedText.cells(entry).map(escape)
                if entry.verdict == .regression { cells[cells.count - 1] = "**REGRESSION**" }
                out += "| " + cells.joined(separator: " | ") + " |\n"
            }
            out += "\n"
        }
        for entry in paired.entries { out += "- \(escape(PairedText.line(entry)))\n" }
        return out + "\n"
    }

    /// `### title`, then one bullet per item (already escaped); nothing when there are no items.
    private static func listSection(_ title: String, _ items: [String]) -> String {
        guard !items.isEmpty else { return "" }
        return "### \(title)\n\n" + items.map { "- \($0)\n" }.joined() + "\n"
    }

    private static func outcomeWord(_ outcome: GateReport.Outcome) -> String {
        switch outcome {
        case .passed: return "passed"
        case .failed: return "FAILED"
        case .undecided: return "undecided"
        }
    }

    /// Device names and paths are any text: one line, no markup (see `UserText.markdown`).
    static func escape(_ text: String) -> String { UserText.markdown(text) }

    /// Text inside a code span (see `UserText.markdownCode`).
    static func code(_ text: String) -> String { UserText.markdownCode(text) }
}
