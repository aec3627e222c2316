/// `launchbench report DIR --format table`: the full summary as plain-text tables, one per device.
package enum SummaryTextReport {
    /// - Parameters:
    ///   - summary: the statistics.
    ///   - notes: the reader's notes (shown first, so nobody misses a skipped line).
    package static func render(_ summary: RunSummary, notes: [String] = []) -> String {
        var blocks: [String] =
            notes.isEmpty ? [] : [notes.map { "note: \(ReportText.printable($0))" }.joined(separator: "\n")]
        if summary.devices.isEmpty { blocks.append("No launches to report.") }
        for device in summary.devices {
            var table = TextTable(
                headers: [
                    "kind", "metric", "n", "fail", "min", "p25", "median", "p75", "p90", "max", "cv %", "95% CI median",
                ],
                alignments: [.left, .left] + Array(repeating: .right, count: 9) + [.left])
            let (measured, unmeasured) = device.measuredRows(of: summary.metrics)
            for (kind, metric, s) in measured {
                table.append([
                    kind.rawValue, metric.rawValue, String(s.n), String(s.failures), ReportText.ms(s.min),
                    ReportText.ms(s.p25), ReportText.ms(s.median), ReportText.ms(s.p75), ReportText.ms(s.p90),
                    ReportText.ms(s.max), ReportText.percent(s.cvPercent), ReportText.interval(s),
                ])
            }
            let heading = device.device.name + " — " + ReportText.deviceLine(device.device)
            var block = ReportText.printable(heading) + "\n"
            for remark in device.remarks { block += ReportText.printable(remark) + "\n" }
            block += table.rows.isEmpty ? "Nothing was measured on this device." : table.render()
            if !unmeasured.isEmpty, !table.rows.isEmpty {
                block += "\nnot measured: " + unmeasured.map(\.rawValue).joined(separator: ", ")
            }
            if let causes = LaunchCauses(device), !table.rows.isEmpty {
                block += "\nWhat to look at (\(causes.kind.rawValue)):"
                if let phases = causes.phaseLine { block += "\n  phases: " + phases }
                block += "\n  " + ReportText.printable(causes.dylibLine)
                block += "\n  " + ReportText.printable(causes.initializerLine())
                if let functions = causes.functionLine() { block += "\n  " + ReportText.printable(functions) }
            }
            for remark in ReportText.launchRemarks(device) { block += "\n" + remark.text }
            for message in device.messages.prefix(10) {
                block += "\n  " + ReportText.printable(message.text) + " (\(message.launches)×)"
            }
            if device.messages.count > 10 {
                block += "\n  … \(device.messages.count - 10) more in report.html and samples.jsonl"
            }
            blocks.append(block)
        }
        blocks.append(
            "Times in ms. Percentiles interpolate linearly between sorted values; the 95% CI of the median is"
                + " distribution-free (order statistics), none for n < 6.")
        return blocks.joined(separator: "\n\n") + "\n"
    }
}
