/// The summary as GitHub-flavoured Markdown, for a pull-request comment or a CI job summary
/// (`$GITHUB_STEP_SUMMARY`): a heading, then per device a line naming it and one table.
public enum MarkdownReport {
    /// - Parameters:
    ///   - summary: the statistics.
    ///   - manifest: `run.json`, for the heading (app and version); optional.
    ///   - notes: the reader's notes, quoted under the tables.
    public static func render(_ summary: RunSummary, manifest: RunManifest? = nil, notes: [String] = []) -> String {
        var lines: [String] = [title(summary, manifest), ""]
        if summary.devices.isEmpty { lines += ["No launches to report.", ""] }
        for device in summary.devices {
            let os = device.device.osVersion.isEmpty ? "" : ", iOS \(escape(device.device.osVersion))"
            lines.append("**\(escape(device.device.name))** (\(escape(device.device.modelDescription))\(os))")
            lines.append("")
            for remark in device.remarks { lines += ["> " + escape(remark), ""] }
            var rows: [String] = []
            var unmeasured: [String] = []
            for kind in device.kinds {
                for metric in summary.metrics {
                    guard let s = kind.metrics[metric] else { continue }
                    guard s.n > 0 else {
                        if !unmeasured.contains(metric.rawValue) { unmeasured.append(metric.rawValue) }
                        continue
                    }
                    let cells: [String] = [
                        kind.kind.rawValue, "`\(metric.rawValue)`", String(s.n), String(s.failures),
                        ReportText.ms(s.median), ReportText.ms(s.p90), ReportText.ms(s.min), ReportText.ms(s.max),
                        ReportText.percent(s.cvPercent), ReportText.interval(s),
                    ]
                    rows.append("| " + cells.joined(separator: " | ") + " |")
                }
            }
            if rows.isEmpty {
                lines.append("Nothing was measured on this device.")
            } else {
                let titles = [
                    "Kind", "Metric", "n", "Failures", "Median (ms)", "p90 (ms)", "Min (ms)", "Max (ms)", "CV %",
                    "95% CI of median (ms)",
                ]
                lines.append("| " + titles.joined(separator: " | ") + " |")
                lines.append("|---|---|--:|--:|--:|--:|--:|--:|--:|---|")
                lines += rows
            }
            var remarks = ReportText.launchRemarks(device).map { "- " + $0.text }
            if !unmeasured.isEmpty, !rows.isEmpty {
                remarks.append("- not measured: " + unmeasured.map { "`\($0)`" }.joined(separator: ", "))
            }
            if !remarks.isEmpty { lines += [""] + remarks }
            lines.append("")
        }
        lines += notes.map { "> " + escape($0) + "  " }
        if !notes.isEmpty { lines.append("") }
        lines.append(
            "<sub>Percentiles interpolate linearly between sorted values (numpy's default); the 95% CI of the median"
                + " is distribution-free (order statistics), none for n < 6. Failed launches are counted, never"
                + " averaged in.</sub>")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func title(_ summary: RunSummary, _ manifest: RunManifest?) -> String {
        var title = "### Launch times"
        guard let app = manifest?.app?.bundleID ?? summary.devices.first?.kinds.first?.samples.first?.appBundleID else {
            return title
        }
        title += " of " + escape(app)
        var version = manifest?.app?.version ?? ""
        if let build = manifest?.app?.build, !build.isEmpty { version += version.isEmpty ? build : " (\(build))" }
        if version.isEmpty, manifest == nil {
            version = summary.devices.first?.kinds.first?.samples.first?.appVersion ?? ""
        }
        return version.isEmpty ? title : title + " " + escape(version)
    }

    /// Text safe inside a GFM table cell: Markdown punctuation backslash-escaped (so `|` cannot
    /// split the cell and `<` cannot open HTML), control characters and line breaks shown as `\u{…}`.
    public static func escape(_ text: String) -> String {
        var result = ""
        for character in ReportText.printable(text) {
            if specials.contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }

    private static let specials: Set<Character> = [
        "\\", "|", "`", "*", "_", "[", "]", "<", ">", "&", "~", "$", "#", "!",
    ]
}
