import Foundation

/// `launchbench trend`'s outputs: CSV (every series), Markdown and a self-contained HTML page with a
/// line chart per series (median, 95 % interval band, steps marked).
package enum TrendReport {
    /// An output format of `launchbench trend --format`.
    package enum Format: String, Sendable, CaseIterable {
        case markdown, csv, html
    }

    /// The whole output in `format`: CSV (header and every series), Markdown (`markdown(_:)`) or a
    /// self-contained HTML page.
    package static func render(_ trend: Trend, format: Format) -> String {
        switch format {
        case .csv: return csv(trend).text
        case .markdown: return markdown(trend)
        case .html: return html(trend)
        }
    }

    /// The trend CSV's columns, in this order (a stable interface). `run` is the run's 1-based number in run
    /// order; `started_at` its start in UTC (`2025-01-31T09:15:00`, no zone suffix); `app_version` `1.2 (34)`;
    /// `device_*`, `product_type`, `os_version` the phone measured, `series_device_udid` the one the series is
    /// filed under (differs when another phone of the same model and iOS stood in); `median`, `ci95_low`,
    /// `ci95_high` in ms; `step` `regression` / `improvement` or empty; `shift_percent` the Hodges–Lehmann
    /// shift from the previous point in % of its median; `p_value` the Mann–Whitney p-value of that change.
    /// An empty cell means none (first point, no interval for n < 6).
    static let csvHeader = [
        "run", "path", "started_at", "app_version", "device_udid", "device_name", "product_type", "os_version",
        "series_device_udid", "launch_kind", "metric", "n", "failures", "median", "ci95_low", "ci95_high", "step",
        "shift_percent", "p_value",
    ]

    /// One row per series × run; `step` is `regression` / `improvement` where the gate's test says the change
    /// from the previous point is real, else empty.
    package static func csv(_ trend: Trend) -> CSVWriter {
        var writer = CSVWriter(header: csvHeader)
        for series in trend.series {
            for point in series.points {
                let run = trend.runs[point.run]
                writer.append([
                    .integer(point.run + 1), .text(run.path), .text(run.startedAt.map(timestamp) ?? ""),
                    .text(run.appVersion ?? ""), .text(point.device.udid), .text(point.device.name),
                    .text(point.device.productType), .text(point.device.osVersion), .text(series.device.udid),
                    .text(series.kind.rawValue), .text(series.metric.rawValue), .integer(point.n),
                    .integer(point.failures), .number(point.median, fractionDigits: 3),
                    .number(point.ci95Low, fractionDigits: 3), .number(point.ci95High, fractionDigits: 3),
                    .text(point.isStep ? point.change?.verdict.rawValue ?? "" : ""),
                    .number(point.change?.shiftPercent, fractionDigits: 3),
                    .number(point.change?.test?.pValue, fractionDigits: 6),
                ])
            }
        }
        return writer
    }

    /// A Markdown section (`## Launch time trend`): a table per chart-worthy series (`Trend.keySeries`) with
    /// each run's median, 95 % interval, n and change, then the skipped folders.
    package static func markdown(_ trend: Trend) -> String {
        var out = "## Launch time trend\n\n"
        out += "\(trend.runs.count) runs in time order; median with its 95 % interval and n. "
        out += "**Step** marks a change from the previous run that the gate's test calls real "
        out += "(\(GateMarkdownReport.escape(GateText.settingsLine(trend.settings))))\n\n"
        if trend.series.isEmpty { out += "No launches to show.\n\n" }
        for series in trend.keySeries {
            out += "### \(GateMarkdownReport.escape(title(series)))\n\n"
            out += "| # | Run | App | Median ms | 95 % CI | n | Change |\n|---:|---|---|---:|---|---:|---|\n"
            for point in series.points {
                let run = trend.runs[point.run]
                let change = GateMarkdownReport.escape(changeText(point))
                let cells = [
                    String(point.run + 1), "`\(GateMarkdownReport.code(run.path))`",
                    GateMarkdownReport.escape(run.appVersion ?? "–"), GateText.ms(point.median), interval(point),
                    String(point.n), point.isStep ? "**\(change)**" : change,
                ]
                out += "| " + cells.joined(separator: " | ") + " |\n"
            }
            out += "\n"
        }
        if !trend.skipped.isEmpty {
            out += "### Skipped folders\n\n"
            for skipped in trend.skipped {
                out += "- `\(GateMarkdownReport.code(skipped.path))`: \(GateMarkdownReport.escape(skipped.reason))\n"
            }
            out += "\n"
        }
        return out
    }

    /// `**step** +12.3 % (p < 0.0001)`, `+0.4 %`, or empty for the first point.
    static func changeText(_ point: Trend.Point) -> String {
        guard let change = point.change else { return "" }
        let shift = GateText.signedPercent(change.shiftPercent)
        guard point.isStep else { return shift }
        return "step \(shift) (\(GateText.pPhrase(change.test?.pValue)))"
    }

    static func title(_ series: Trend.Series) -> String {
        let device = series.device.name.isEmpty ? series.device.udid : series.device.name
        return [
            device, series.device.modelDescription, "iOS \(series.device.osVersion)", series.kind.rawValue,
            series.metric.rawValue,
        ].joined(separator: " · ")
    }

    /// `111.2–119.0`, or `n < 6` when the sample is too small for a 95 % interval.
    static func interval(_ point: Trend.Point) -> String {
        guard let low = point.ci95Low, let high = point.ci95High else { return "n < 6" }
        return "\(GateText.ms(low))–\(GateText.ms(high))"
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(
            Date.ISO8601FormatStyle().year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false)
                .timeSeparator(.colon))
    }
}
