import Foundation

extension TrendReport {
    /// One self-contained page (inline CSS and SVG, no scripts): per key series a line chart of the medians
    /// with the 95 % interval as a band, steps drawn as red rings and labelled, and the numbers in a table.
    package static func html(_ trend: Trend) -> String {
        var body = "<header><h1>Launch time trend</h1>"
        body += HTMLText.text(
            "p", ["class": "sub"],
            "\(trend.runs.count) runs in time order · line = median, band = its 95 % interval (none for n < 6) · "
                + "red ring = a step the gate's test calls real (\(GateText.settingsLine(trend.settings)))")
        body += "</header>\n"
        if !trend.skipped.isEmpty {
            let items = trend.skipped.map { HTMLText.text("li", "\($0.path): \($0.reason)") }.joined()
            let list = "<h2>Skipped folders</h2>" + HTMLText.element("ul", [:], items)
            body += HTMLText.element("section", ["class": "notes"], list) + "\n"
        }
        if trend.series.isEmpty { body += HTMLText.text("p", ["class": "empty"], "No launches to show.") }
        for (index, series) in trend.keySeries.enumerated() {
            var section = HTMLText.text("h2", title(series))
            section += HTMLText.element("figure", [:], chart(series, trend: trend))
            section += table(series, trend: trend)
            body += HTMLText.element("section", ["class": "device", "id": "series-\(index + 1)"], section) + "\n"
        }
        return HTMLText.page(title: "Launch time trend", css: HTMLReport.css + trendCSS, body: body)
    }

    static let trendCSS = """
        .band{fill:#0072B2;fill-opacity:.15;stroke:none}.trend-line{fill:none;stroke:#0072B2;stroke-width:2}\
        .dot{fill:#0072B2}.step{fill:none;stroke:#b3261e;stroke-width:2.5}\
        .step-label{fill:#b3261e;font-size:12px;font-weight:600}.grid{stroke:#e5e5ea;stroke-width:1}.tick{fill:#6e6e73;font-size:11px}\
        .trend td:nth-child(2),.trend td:nth-child(3),.trend td:nth-child(4),.trend th{text-align:left}
        """

    static func chart(_ series: Trend.Series, trend: Trend) -> String {
        let width = 1000.0
        let height = 260.0
        let left = 64.0
        let right = 24.0
        let top = 24.0
        let bottom = 40.0
        let points = series.points.filter { $0.median != nil }
        let values = points.flatMap { [$0.median, $0.ci95Low, $0.ci95High].compactMap { $0 } }
        guard let low = values.min(), let high = values.max() else { return "" }
        // Some room above and below, so the step labels fit beside the points.
        let pad = max((high - low) * 0.12, 1)
        let ticks = HTMLCharts.niceTicks(low: low - pad, high: high + pad)
        let y0 = ticks.first ?? low
        let y1 = ticks.last ?? high
        let runCount = max(trend.runs.count, 1)
        func x(_ run: Int) -> Double {
            let span = width - left - right
            return runCount == 1 ? left + span / 2 : left + Double(run) * span / Double(runCount - 1)
        }
        func y(_ v: Double) -> Double { top + (y1 - v) / (y1 - y0 == 0 ? 1 : y1 - y0) * (height - top - bottom) }
        func n(_ v: Double) -> String { DecimalText.fixed(v, maxFractionDigits: 2) }

        var svg = ""
        for tick in ticks {
            svg += HTMLText.empty(
                "line", ["x1": n(left), "y1": n(y(tick)), "x2": n(width - right), "y2": n(y(tick)), "class": "grid"])
            svg += label(ReportText.ms(tick), x: left - 6, y: y(tick) + 4, className: "tick", anchor: "end")
        }
        for run in 0..<trend.runs.count {
            svg += label("#\(run + 1)", x: x(run), y: height - bottom + 18, className: "tick", anchor: "middle")
        }
        svg += label("ms (\(series.metric.title))", x: left, y: 12, className: "tick", anchor: "start")
        // The band: the intervals of consecutive points with one, joined into polygons.
        var segment: [Trend.Point] = []
        func flush() {
            if segment.count >= 2 {
                let upper = segment.map { "\(n(x($0.run))),\(n(y($0.ci95High!)))" }
                let lower = segment.reversed().map { "\(n(x($0.run))),\(n(y($0.ci95Low!)))" }
                svg += HTMLText.empty("polygon", ["points": (upper + lower).joined(separator: " "), "class": "band"])
            } else if let only = segment.first {
                svg += HTMLText.empty(
                    "rect",
                    [
                        "x": n(x(only.run) - 4), "y": n(y(only.ci95High!)), "width": "8",
                        "height": n(max(1, y(only.ci95Low!) - y(only.ci95High!))), "class": "band",
                    ])
            }
            segment = []
        }
        for point in points {
            if point.ci95Low != nil && point.ci95High != nil { segment.append(point) } else { flush() }
        }
        flush()
        let line = points.map { "\(n(x($0.run))),\(n(y($0.median!)))" }.joined(separator: " ")
        svg += HTMLText.empty("polyline", ["points": line, "class": "trend-line"])
        for point in points {
            let run = trend.runs[point.run]
            let cx = n(x(point.run))
            let cy = y(point.median!)
            let tip =
                "#\(point.run + 1) \(run.path)\(run.appVersion.map { " · " + $0 } ?? ""): "
                + "median \(ReportText.ms(point.median)) ms, n = \(point.n)"
                + (point.change != nil ? " · " + changeText(point) : "")
            svg += HTMLText.element(
                "circle", ["cx": cx, "cy": n(cy), "r": "4", "class": "dot"], HTMLText.text("title", tip))
            if point.isStep {
                svg += HTMLText.empty("circle", ["cx": cx, "cy": n(cy), "r": "9", "class": "step"])
                let text = "step " + GateText.signedPercent(point.change?.shiftPercent)
                // Above a step up, below a step down: the label stays clear of the line into the point.
                let below = (point.change?.shift?.shift ?? 0) < 0 && cy + 24 <= height - bottom - 2
                svg += label(
                    text, x: x(point.run), y: below ? cy + 24 : cy - 14, className: "step-label", anchor: "middle")
            }
        }
        let label = "Median \(series.metric.title) per run with its 95 % interval; steps marked"
        return HTMLText.element(
            "svg",
            [
                "xmlns": "http://www.w3.org/2000/svg", "class": "chart", "viewBox": "0 0 \(n(width)) \(n(height))",
                "width": n(width), "height": n(height), "role": "img", "aria-label": label,
            ], svg)
    }

    /// An SVG text, escaped.
    static func label(_ text: String, x: Double, y: Double, className: String, anchor: String) -> String {
        let n = { (v: Double) in DecimalText.fixed(v, maxFractionDigits: 2) }
        return HTMLText.text("text", ["x": n(x), "y": n(y), "class": className, "text-anchor": anchor], text)
    }

    static func table(_ series: Trend.Series, trend: Trend) -> String {
        let head =
            "<thead><tr>"
            + ["#", "run", "app", "device", "median ms", "95% CI", "n", "change"]
            .map { HTMLText.text("th", $0) }.joined() + "</tr></thead>"
        let rows = series.points.map { point -> String in
            let run = trend.runs[point.run]
            let cells = [
                String(point.run + 1), run.path, run.appVersion ?? "–", point.device.name, ReportText.ms(point.median),
                interval(point), String(point.n), changeText(point),
            ]
            return HTMLText.element(
                "tr", point.isStep ? ["class": "bad"] : [:], cells.map { HTMLText.text("td", $0) }.joined())
        }
        let table = HTMLText.element("table", ["class": "summary trend"], head + "<tbody>" + rows.joined() + "</tbody>")
        return HTMLText.element("div", ["class": "scroll"], table)
    }
}
