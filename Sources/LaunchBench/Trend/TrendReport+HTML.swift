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
        let points = series.points.filter { $0.median != nil }
        guard let scale = ChartScale(points: points, runCount: trend.runs.count) else { return "" }
        let n = ChartScale.n
        var svg = ""
        for tick in scale.ticks {
            svg += HTMLText.empty(
                "line",
                [
                    "x1": n(scale.left), "y1": n(scale.y(tick)), "x2": n(scale.width - scale.right),
                    "y2": n(scale.y(tick)), "class": "grid",
                ])
            svg += label(ReportText.ms(tick), x: scale.left - 6, y: scale.y(tick) + 4, className: "tick", anchor: "end")
        }
        for run in 0..<trend.runs.count {
            svg += label(
                "#\(run + 1)", x: scale.x(run), y: scale.height - scale.bottom + 18, className: "tick",
                anchor: "middle")
        }
        svg += label("ms (\(series.metric.title))", x: scale.left, y: 12, className: "tick", anchor: "start")
        svg += band(points, scale: scale)
        let line = points.map { "\(n(scale.x($0.run))),\(n(scale.y($0.median!)))" }.joined(separator: " ")
        svg += HTMLText.empty("polyline", ["points": line, "class": "trend-line"])
        svg += points.map { dot($0, scale: scale, trend: trend) }.joined()
        let label = "Median \(series.metric.title) per run with its 95 % interval; steps marked"
        return HTMLText.element(
            "svg",
            [
                "xmlns": "http://www.w3.org/2000/svg", "class": "chart",
                "viewBox": "0 0 \(n(scale.width)) \(n(scale.height))", "width": n(scale.width),
                "height": n(scale.height), "role": "img", "aria-label": label,
            ], svg)
    }

    /// The band: the intervals of consecutive points with one, joined into polygons (a lone one is a bar).
    private static func band(_ points: [Trend.Point], scale: ChartScale) -> String {
        let n = ChartScale.n
        var svg = ""
        var segment: [Trend.Point] = []
        func flush() {
            if segment.count >= 2 {
                let upper = segment.map { "\(n(scale.x($0.run))),\(n(scale.y($0.ci95High!)))" }
                let lower = segment.reversed().map { "\(n(scale.x($0.run))),\(n(scale.y($0.ci95Low!)))" }
                svg += HTMLText.empty("polygon", ["points": (upper + lower).joined(separator: " "), "class": "band"])
            } else if let only = segment.first {
                svg += HTMLText.empty(
                    "rect",
                    [
                        "x": n(scale.x(only.run) - 4), "y": n(scale.y(only.ci95High!)), "width": "8",
                        "height": n(max(1, scale.y(only.ci95Low!) - scale.y(only.ci95High!))), "class": "band",
                    ])
            }
            segment = []
        }
        for point in points {
            if point.ci95Low != nil && point.ci95High != nil { segment.append(point) } else { flush() }
        }
        flush()
        return svg
    }

    /// A point's dot with its tooltip, and a labelled ring when it is a step.
    private static func dot(_ point: Trend.Point, scale: ChartScale, trend: Trend) -> String {
        let n = ChartScale.n
        let run = trend.runs[point.run]
        let cx = n(scale.x(point.run))
        let cy = scale.y(point.median!)
        let tip =
            "#\(point.run + 1) \(run.path)\(run.appVersion.map { " · " + $0 } ?? ""): "
            + "median \(ReportText.ms(point.median)) ms, n = \(point.n)"
            + (point.change != nil ? " · " + changeText(point) : "")
        var svg = HTMLText.element(
            "circle", ["cx": cx, "cy": n(cy), "r": "4", "class": "dot"], HTMLText.text("title", tip))
        if point.isStep {
            svg += HTMLText.empty("circle", ["cx": cx, "cy": n(cy), "r": "9", "class": "step"])
            let text = "step " + GateText.signedPercent(point.change?.shiftPercent)
            // Above a step up, below a step down: the label stays clear of the line into the point.
            let below = (point.change?.shift?.shift ?? 0) < 0 && cy + 24 <= scale.height - scale.bottom - 2
            svg += label(
                text, x: scale.x(point.run), y: below ? cy + 24 : cy - 14, className: "step-label", anchor: "middle")
        }
        return svg
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

/// The trend chart's frame and axes: run index → x, ms → y.
private struct ChartScale {
    let width = 1000.0
    let height = 260.0
    let left = 64.0
    let right = 24.0
    let top = 24.0
    let bottom = 40.0
    /// The y-axis ticks, ms.
    let ticks: [Double]
    private let y0: Double
    private let y1: Double
    private let runCount: Int

    /// Nil when no point has a value to draw.
    init?(points: [Trend.Point], runCount: Int) {
        let values = points.flatMap { [$0.median, $0.ci95Low, $0.ci95High].compactMap { $0 } }
        guard let low = values.min(), let high = values.max() else { return nil }
        // Some room above and below, so the step labels fit beside the points.
        let pad = max((high - low) * 0.12, 1)
        ticks = HTMLCharts.niceTicks(low: low - pad, high: high + pad)
        y0 = ticks.first ?? low
        y1 = ticks.last ?? high
        self.runCount = max(runCount, 1)
    }

    func x(_ run: Int) -> Double {
        let span = width - left - right
        return runCount == 1 ? left + span / 2 : left + Double(run) * span / Double(runCount - 1)
    }

    func y(_ v: Double) -> Double { top + (y1 - v) / (y1 - y0 == 0 ? 1 : y1 - y0) * (height - top - bottom) }

    /// A coordinate as SVG text.
    static func n(_ v: Double) -> String { DecimalText.fixed(v, maxFractionDigits: 2) }
}
