import Foundation

/// `report.html`: one self-contained page (inline CSS and SVG; no scripts, fonts or network) that
/// answers, per device: how long cold and warm launches take, in which phase the time goes, and
/// how noisy it is. The markup is well-formed XHTML syntax, so an XML parser can check it.
public enum HTMLReport {
    /// - Parameters:
    ///   - folder: the results read back (for `run.json` and the notes).
    ///   - summary: the statistics of `folder.samples`.
    public static func render(_ folder: ResultsFolder, summary: RunSummary) -> String {
        let manifest = folder.manifest
        let appID = manifest?.app?.bundleID ?? folder.samples.first?.appBundleID ?? "unknown app"
        var version = [manifest?.app?.version, manifest?.app?.build].compactMap { $0 }.filter { !$0.isEmpty }
        if version.count == 2 { version[1] = "(\(version[1]))" }
        if version.isEmpty, let fromSamples = folder.samples.first?.appVersion, !fromSamples.isEmpty { version = [fromSamples] }
        let appTitle = ([appID] + version).joined(separator: " ")

        var page = """
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
            <head>
            <meta charset="utf-8"/>
            <meta name="viewport" content="width=device-width, initial-scale=1"/>
            <title>Launch times · \(HTMLText.escape(appTitle))</title>
            <style>\(css)</style>
            </head>
            <body>
            <header>
            <h1>Launch times of <span class="app">\(HTMLText.escape(appTitle))</span></h1>
            <p class="sub">\(HTMLText.escape(subtitle(folder, summary)))</p>
            </header>

            """
        if !folder.notes.isEmpty {
            page += "<section class=\"notes\"><h2>Notes</h2><ul>"
            page += folder.notes.map { "<li>\(HTMLText.escape($0))</li>" }.joined()
            page += "</ul></section>\n"
        }
        if summary.devices.isEmpty {
            page += "<p class=\"empty\">No launches to report.</p>\n"
        }
        for (index, device) in summary.devices.enumerated() {
            page += deviceSection(device, index: index + 1, metrics: summary.metrics)
        }
        page += runDetails(folder)
        page += methodNote
        page += "</body>\n</html>\n"
        return page
    }

    private static func subtitle(_ folder: ResultsFolder, _ summary: RunSummary) -> String {
        var parts = ["\(summary.devices.count) device\(summary.devices.count == 1 ? "" : "s")",
                     "\(summary.launchCount) launches", "\(summary.failureCount) failed"]
        if let started = folder.manifest?.startedAt ?? folder.samples.map(\.startedAt).min() {
            parts.append("started \(timestamp(started))")
        }
        return parts.joined(separator: " · ")
    }

    private static func deviceSection(_ device: DeviceSummary, index: Int, metrics: [Metric]) -> String {
        var html = "<section class=\"device\" id=\"device-\(index)\">\n"
        html += "<h2>\(HTMLText.escape(device.device.name.isEmpty ? device.device.udid : device.device.name))</h2>\n"
        html += "<p class=\"device-line\">\(HTMLText.escape(ReportText.deviceLine(device.device)))</p>\n"
        for remark in device.remarks { html += "<p class=\"remark\">\(HTMLText.escape(remark))</p>\n" }
        for kind in device.kinds where kind.failures > 0 {
            html += "<p class=\"remark bad\">\(kind.kind.rawValue): \(kind.failures) of \(kind.launches) launches failed (\(HTMLText.escape(ReportText.failureBreakdown(kind))))</p>\n"
        }
        for kind in device.kinds where kind.withoutMetrics > 0 {
            html += "<p class=\"remark\">\(kind.kind.rawValue): \(kind.withoutMetrics) of \(kind.launches) launches printed no timing (no-metrics)</p>\n"
        }

        guard let headline = device.headlineMetric else {
            return html + "<p class=\"empty\">Nothing was measured on this device.</p>\n</section>\n"
        }
        do {
            html += "<div class=\"cards\">"
            for kind in device.kinds {
                guard let s = kind.metrics[headline] else { continue }
                html += "<div class=\"card \(kind.kind.rawValue)\"><div class=\"card-kind\">\(kind.kind.rawValue) · \(HTMLText.escape(headline.title))</div>"
                html += "<div class=\"card-value\">\(ReportText.ms(s.median)) <small>ms median</small></div>"
                html += "<div class=\"card-detail\">p90 \(ReportText.ms(s.p90)) ms · CV \(ReportText.percent(s.cvPercent)) % · n = \(s.n)"
                html += kind.failures > 0 ? " · <span class=\"bad\">\(kind.failures) failed</span>" : ""
                html += "</div></div>"
            }
            html += "</div>\n"
        }

        html += "<h3>Where the time goes</h3>\n"
        if let bars = HTMLCharts.phaseBars(device) {
            html += "<figure>\(bars)<figcaption>Each segment is the median of that phase over the launches that measured it; medians of the parts need not add up to the median of the whole.</figcaption></figure>\n"
        } else {
            html += "<p class=\"empty\">No phase timings were measured on this device (no dyld statistics and no app markers).</p>\n"
        }

        html += "<h3>Every launch</h3>\n"
        if let strip = HTMLCharts.stripPlot(device, metric: headline) {
            html += "<figure>\(strip)<figcaption>One dot per measured launch of \(HTMLText.escape(headline.title)); the shaded box spans p25–p75, the line is the median. Failed launches have no value to show."
            html += "</figcaption></figure>\n"
        } else {
            html += "<p class=\"empty\">No launch on this device was measured.</p>\n"
        }

        html += "<h3>Summary</h3>\n"
        var rows = ""
        var unmeasured: [String] = []
        for kind in device.kinds {
            for metric in metrics {
                guard let s = kind.metrics[metric] else { continue }
                // Rows with nothing measured (pre-main on iOS 15+) stay in summary.csv but not here.
                guard s.n > 0 else {
                    if !unmeasured.contains(metric.rawValue) { unmeasured.append(metric.rawValue) }
                    continue
                }
                rows += "<tr><td>\(kind.kind.rawValue)</td><td><code>\(metric.rawValue)</code></td><td>\(s.n)</td>"
                rows += s.failures > 0 ? "<td class=\"bad\">\(s.failures)</td>" : "<td>0</td>"
                for value in [s.min, s.p25, s.median, s.mean, s.p75, s.p90, s.max, s.stddev] {
                    rows += "<td>\(ReportText.ms(value))</td>"
                }
                rows += "<td>\(ReportText.percent(s.cvPercent))</td>"
                if let ci = s.ci95 {
                    let coverage = DecimalText.exact(ci.coverage * 100, fractionDigits: 1)
                    rows += "<td title=\"x(\(ci.lowerRank)) to x(\(ci.upperRank)) of \(s.n): \(coverage) % coverage\">\(ReportText.ms(ci.low))–\(ReportText.ms(ci.high))</td>"
                } else {
                    rows += "<td class=\"muted\">n &lt; 6</td>"
                }
                rows += "</tr>"
            }
        }
        if rows.isEmpty {
            html += "<p class=\"empty\">Nothing was measured on this device.</p>\n"
        } else {
            html += "<div class=\"scroll\"><table class=\"summary\"><thead><tr>"
            for title in ["kind", "metric", "n", "failures", "min", "p25", "median", "mean", "p75", "p90", "max", "stddev", "CV %", "95% CI of median"] {
                html += "<th>\(HTMLText.escape(title))</th>"
            }
            html += "</tr></thead><tbody>" + rows + "</tbody></table></div>\n"
        }
        if !unmeasured.isEmpty, !rows.isEmpty {
            html += "<p class=\"empty\">Not measured on this device: \(unmeasured.map { "<code>\($0)</code>" }.joined(separator: ", ")).</p>\n"
        }
        html += "</section>\n"
        return html
    }

    private static func runDetails(_ folder: ResultsFolder) -> String {
        var rows: [(String, String)] = []
        let manifest = folder.manifest
        let first = folder.samples.first
        rows.append(("App", manifest?.app?.bundleID ?? first?.appBundleID ?? "–"))
        if let name = manifest?.app?.name { rows.append(("Bundle", name)) }
        rows.append(("Version", manifest?.app?.version ?? first?.appVersion ?? "–"))
        if let build = manifest?.app?.build { rows.append(("Build", build)) }
        if let runID = manifest?.runID ?? first?.runID { rows.append(("Run", runID)) }
        if let started = manifest?.startedAt { rows.append(("Started", timestamp(started))) }
        if let manifest {
            rows.append(("Ended", manifest.endedAt.map(timestamp) ?? "not recorded (interrupted or still running)"))
        }
        if let tool = manifest?.toolVersion { rows.append(("Measured with", "launchbench \(tool)")) }
        rows.append(("Report by", "launchbench \(LaunchBenchVersion.current)"))
        if let host = manifest?.host {
            rows.append(("Host", [host.name, host.operatingSystem, host.architecture].compactMap { $0 }.joined(separator: " · ")))
        }
        for option in manifest?.options?.descriptions ?? [] { rows.append(("Option \(option.name)", option.value)) }
        if let frameworks = manifest?.app?.frameworks, !frameworks.isEmpty {
            rows.append(("Embedded frameworks", frameworks.joined(separator: ", ")))
        }

        var html = "<section class=\"run\"><h2>Run</h2><table class=\"meta\"><tbody>"
        for (name, value) in rows {
            html += "<tr><th>\(HTMLText.escape(name))</th><td>\(HTMLText.escape(value))</td></tr>"
        }
        html += "</tbody></table>"
        if let devices = manifest?.devices, !devices.isEmpty {
            html += "<h3>Devices</h3><div class=\"scroll\"><table class=\"summary\"><thead><tr><th>name</th><th>model</th><th>iOS</th><th>build</th><th>UDID</th><th>connection</th></tr></thead><tbody>"
            for device in devices {
                html += "<tr>" + [device.name, DeviceIdentity(udid: device.udid, name: device.name, productType: device.productType, osVersion: device.osVersion).modelDescription,
                                  device.osVersion, device.buildVersion, device.udid, device.connection.rawValue]
                    .map { "<td class=\"text\">\(HTMLText.escape($0))</td>" }.joined() + "</tr>"
            }
            html += "</tbody></table></div>"
        }
        html += "</section>\n"
        return html
    }

    private static let methodNote = """
        <footer><p><strong>Method.</strong> Every launch counts; failed launches (timeout, crash, install failure, …) \
        are counted as failures and never enter the numbers, and a value a launch did not measure is left out, not \
        taken as 0. Percentiles interpolate linearly between the sorted values (numpy's default, PERCENTILE.INC). \
        The standard deviation divides by n − 1; CV = standard deviation / mean. The 95 % interval of the median is \
        distribution-free: the order statistics x(k) and x(n−k+1) with k from the Binomial(n, ½) distribution, \
        its exact coverage in brackets; for fewer than 6 launches no such interval exists and none is shown.</p></footer>

        """

    private static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(dateSeparator: .dash, dateTimeSeparator: .space, timeSeparator: .colon, timeZoneSeparator: .omitted, includingFractionalSeconds: false, timeZone: TimeZone(identifier: "UTC")!))
            .replacingOccurrences(of: "Z", with: " UTC")
    }

    private static let css = """
        :root{color-scheme:light;--ink:#1d1d1f;--muted:#6e6e73;--line:#d2d2d7;--bad:#b3261e;--bg:#ffffff;--panel:#f5f5f7}
        *{box-sizing:border-box}
        body{margin:0 auto;max-width:1060px;padding:24px 28px 48px;font:15px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);background:var(--bg)}
        h1{font-size:24px;margin:0 0 4px}h1 .app{font-weight:600}
        h2{font-size:20px;margin:0 0 2px}h3{font-size:15px;margin:20px 0 6px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
        .sub,.device-line{color:var(--muted);margin:0 0 12px}
        .device-line{font-size:13px;word-break:break-all}
        section.device,section.run{border-top:1px solid var(--line);padding-top:20px;margin-top:28px}
        .notes{background:#fff4e5;border:1px solid #f0c36d;border-radius:8px;padding:10px 16px;margin:16px 0}
        .notes h2{font-size:15px}.notes ul{margin:4px 0;padding-left:20px}
        .cards{display:flex;flex-wrap:wrap;gap:12px;margin:8px 0 4px}
        .card{background:var(--panel);border-radius:10px;padding:10px 16px;min-width:240px;border-left:5px solid #0072B2}
        .card.warm{border-left-color:#D55E00}
        .card-kind{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
        .card-value{font-size:26px;font-weight:600;font-variant-numeric:tabular-nums}.card-value small{font-size:13px;font-weight:400;color:var(--muted)}
        .card-detail{font-size:13px;color:var(--muted)}
        .bad{color:var(--bad);font-weight:600}
        figure{margin:0}figcaption{font-size:12px;color:var(--muted);margin-top:2px}
        svg.chart{display:block;max-width:100%;height:auto;font-family:inherit}
        svg .axis-label{font-size:13px;fill:var(--ink);font-weight:600}
        svg .bar-value{font-size:11px;fill:#ffffff;font-weight:600}
        svg .bar-total{font-size:12px;fill:var(--ink)}
        svg .legend,svg .tick{font-size:11px;fill:var(--muted)}
        svg .axis-title{font-size:12px;fill:var(--muted)}
        svg .axis{stroke:#8e8e93;stroke-width:1}
        svg .median{stroke:var(--ink);stroke-width:2}
        svg .iqr{fill:#e8e8ed;stroke:#c7c7cc;stroke-width:1}
        .scroll{overflow-x:auto}
        table{border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums}
        table.summary th,table.summary td{padding:4px 7px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
        table.summary th:nth-child(-n+2),table.summary td:nth-child(-n+2),table.summary td.text{text-align:left}
        table.summary thead th{color:var(--muted);font-weight:600}
        .muted{color:#aeaeb2}
        table.meta th{text-align:left;padding:3px 16px 3px 0;color:var(--muted);font-weight:500;vertical-align:top}
        table.meta td{padding:3px 0;word-break:break-word}
        code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
        footer{margin-top:32px;font-size:12px;color:var(--muted);border-top:1px solid var(--line);padding-top:12px}
        .empty{color:var(--muted);font-style:italic}
        .remark{font-size:13px;margin:0 0 8px;color:var(--ink)}
        .remark.bad{color:var(--bad)}
        @media print{body{max-width:none}.scroll{overflow:visible}}
        """
}
