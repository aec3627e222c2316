/// The summary as GitHub-flavoured Markdown, for a pull-request comment or a CI job summary
/// (`$GITHUB_STEP_SUMMARY`): a heading, one short table of the key numbers of every device (median,
/// p90, CV, n, failures of total pre-main and first frame), the failures, then per device every
/// metric in a collapsed `<details>` block so the comment stays short.
package enum MarkdownReport {
    /// - Parameters:
    ///   - summary: the statistics.
    ///   - manifest: `run.json`, for the heading (app and version); optional.
    ///   - notes: the reader's notes, quoted under the tables.
    package static func render(_ summary: RunSummary, manifest: RunManifest? = nil, notes: [String] = []) -> String {
        var lines: [String] = [title(summary, manifest), ""]
        if summary.devices.isEmpty { lines += ["No launches to report.", ""] }
        if !summary.devices.isEmpty {
            lines += overview(summary) + [""]
        }
        let remarks = summary.devices.flatMap { device in
            ReportText.launchRemarks(device).map { "- \(escape(device.device.name)), \($0.text)" }
        }
        if !remarks.isEmpty { lines += remarks + [""] }
        for device in summary.devices {
            lines += details(device, metrics: summary.metrics) + [""]
        }
        for note in notes { lines += ["> " + escape(note), ""] }
        lines.append(
            "<sub>Percentiles interpolate linearly between sorted values (numpy's default); the 95% CI of the median"
                + " is distribution-free (order statistics), none for n < 6. Failed launches are counted, never"
                + " averaged in.</sub>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Every device's key metrics in one table.
    private static func overview(_ summary: RunSummary) -> [String] {
        var lines = [
            "| Device | Kind | Metric | Median (ms) | p90 (ms) | CV % | n | Failures |",
            "|---|---|---|--:|--:|--:|--:|--:|",
        ]
        for device in summary.devices {
            let name = deviceName(device.device)
            let metrics = device.keyMetrics
            if metrics.isEmpty {
                let failures = device.kinds.reduce(0) { $0 + $1.failures }
                lines.append("| \(name) | – | nothing measured | – | – | – | 0 | \(failures) |")
            }
            for kind in device.kinds {
                for metric in metrics {
                    guard let s = kind.metrics[metric] else { continue }
                    let cells = [
                        name, kind.kind.rawValue, metric.title, ReportText.ms(s.median), ReportText.ms(s.p90),
                        ReportText.percent(s.cvPercent), String(s.n), String(s.failures),
                    ]
                    lines.append("| " + cells.joined(separator: " | ") + " |")
                }
            }
        }
        return lines
    }

    /// One device's every measured metric, collapsed.
    private static func details(_ device: DeviceSummary, metrics: [Metric]) -> [String] {
        // Inside <summary> is HTML, not Markdown: escape for HTML there.
        let heading =
            device.device.name + " (" + device.device.modelDescription
            + (device.device.osVersion.isEmpty ? "" : ", iOS " + device.device.osVersion) + ")"
        var lines = [
            "<details><summary>All metrics: \(HTMLText.escape(ReportText.printable(heading)))</summary>", "",
        ]
        for remark in device.remarks { lines += ["> " + escape(remark), ""] }
        let (measured, unmeasured) = device.measuredRows(of: metrics)
        let rows = measured.map { kind, metric, s in
            let cells: [String] = [
                kind.rawValue, "`\(metric.rawValue)`", String(s.n), String(s.failures),
                ReportText.ms(s.median), ReportText.ms(s.p90), ReportText.ms(s.min), ReportText.ms(s.max),
                ReportText.percent(s.cvPercent), ReportText.interval(s),
            ]
            return "| " + cells.joined(separator: " | ") + " |"
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
            if !unmeasured.isEmpty {
                lines += ["", "Not measured: " + unmeasured.map { "`\($0.rawValue)`" }.joined(separator: ", ")]
            }
            if let causes = LaunchCauses(device) {
                lines += ["", "What to look at (\(causes.kind.rawValue)):", ""]
                if let phases = causes.phaseLine { lines.append("- Phases: " + escape(phases)) }
                lines.append("- " + escape(ReportText.printable(causes.dylibLine)))
                lines.append("- " + escape(ReportText.printable(causes.initializerLine())))
            }
        }
        return lines + ["", "</details>"]
    }

    /// `Ana's iPhone (iPhone 11, iOS 14.8)`, escaped for a table cell.
    private static func deviceName(_ device: DeviceIdentity) -> String {
        let model = DeviceModels.marketingName(for: device.productType)
        let os = device.osVersion.isEmpty ? "" : ", iOS \(device.osVersion)"
        return escape("\(device.name) (\(model)\(os))")
    }

    private static func title(_ summary: RunSummary, _ manifest: RunManifest?) -> String {
        var title = "### Launch times"
        guard let app = manifest?.app?.bundleID ?? summary.devices.first?.appBundleID else {
            return title
        }
        title += " of " + escape(app)
        var version = manifest?.app?.version ?? ""
        if let build = manifest?.app?.build, !build.isEmpty { version += version.isEmpty ? build : " (\(build))" }
        if version.isEmpty, manifest == nil {
            version = summary.devices.first?.appVersion ?? ""
        }
        return version.isEmpty ? title : title + " " + escape(version)
    }

    /// Text safe inside a GFM table cell (see `UserText.markdown`).
    package static func escape(_ text: String) -> String { UserText.markdown(text) }
}
