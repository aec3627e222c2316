import Foundation

/// Inline SVG charts for the HTML report, drawn in Swift (no scripts, no external files).
/// Every number goes through `DecimalText` (locale-independent) and every text through `HTMLText`.
enum HTMLCharts {
    static let width = 1000.0
    /// Room on the left for the row labels (`cold`, `warm`).
    static let labelWidth = 56.0

    /// Phase colours (Okabe–Ito: distinguishable with colour-vision deficiencies).
    static let phaseColors: [String: String] = [
        "dylib loading": "#0072B2", "rebase/binding": "#56B4E9", "ObjC setup": "#009E73", "initializers": "#E69F00",
        PhaseBreakdown.otherPreMain: "#9A9A9A", PhaseBreakdown.wholePreMain: "#9A9A9A",
        PhaseBreakdown.processCreation: "#000000", PhaseBreakdown.closureBuild: "#F0E442",
        "main → didFinishLaunching": "#CC79A7", "didFinishLaunching → first frame": "#D55E00",
    ]
    static let kindColors: [LaunchKind: String] = [.cold: "#0072B2", .warm: "#D55E00"]

    /// Horizontal stacked bars of the median phases, one bar per launch kind, on one scale.
    static func phaseBars(_ device: DeviceSummary) -> String? {
        let bars = device.kinds.map { ($0.kind, PhaseBreakdown(points: $0.points)) }.filter { !$0.1.phases.isEmpty }
        guard !bars.isEmpty else { return nil }
        let barArea = width - labelWidth - 96  // 96: the total's label after the bar
        let longest = bars.map(\.1.totalMs).max() ?? 0
        let scale = longest > 0 ? barArea / longest : 0
        let rowHeight = 26.0
        let rowGap = 12.0
        let top = 4.0

        var body = ""
        for (row, (kind, breakdown)) in bars.enumerated() {
            let y = top + Double(row) * (rowHeight + rowGap)
            let baseline = y + rowHeight / 2 + 4
            body += text(kind.rawValue, x: 0, y: baseline, className: "axis-label")
            var x = labelWidth
            for phase in breakdown.phases {
                let w = phase.medianMs * scale
                let tip =
                    "\(kind.rawValue), \(phase.name): \(ReportText.ms(phase.medianMs)) ms"
                    + " (median of \(phase.n) launches)"
                let rect: KeyValuePairs = [
                    "x": n(x), "y": n(y), "width": n(w), "height": n(rowHeight), "fill": color(of: phase.name),
                ]
                body += HTMLText.element("rect", rect, HTMLText.text("title", tip))
                // Only segments wide enough to hold their number get one.
                let label = DecimalText.fixed(phase.medianMs, maxFractionDigits: phase.medianMs < 10 ? 1 : 0)
                if w >= Double(label.count) * 7 + 8 {
                    body += text(label, x: x + w / 2, y: baseline, className: "bar-value", anchor: "middle")
                }
                x += w
            }
            body += text("\(ReportText.ms(breakdown.totalMs)) ms", x: x + 6, y: baseline, className: "bar-total")
        }

        // Legend: the phases that appear, wrapped into lines.
        let names = PhaseBreakdown.names.filter { name in bars.contains { $0.1.phases.contains { $0.name == name } } }
        var lx = labelWidth
        var ly = top + Double(bars.count) * (rowHeight + rowGap) + 6
        for name in names {
            let itemWidth = 36 + Double(name.count) * 6.6
            if lx + itemWidth > width { (lx, ly) = (labelWidth, ly + 20) }
            body += HTMLText.empty(
                "rect", ["x": n(lx), "y": n(ly), "width": "12", "height": "12", "fill": color(of: name)])
            body += text(name, x: lx + 17, y: ly + 10, className: "legend")
            lx += itemWidth
        }
        return svg(height: ly + 20, label: "Median launch phases, cold and warm", body: body)
    }

    /// At most this many dots per row of a strip plot: beyond it the dots merge into one band and a
    /// browser slows down (a 100,000-launch run would draw 25 MB of circles).
    static let maxDotsPerRow = 1000

    /// Every launch's value of `metric` as a dot, one row per kind, jittered vertically; the box
    /// marks p25–p75 and the line the median (both from every launch). The axis spans the values (it need
    /// not start at 0). A row with more than `maxDotsPerRow` launches draws every k-th, and the axis title
    /// says so.
    static func stripPlot(_ device: DeviceSummary, metric: Metric) -> String? {
        let rows = device.kinds.compactMap { kind in kind.metrics[metric].map { (kind, $0) } }.filter { $0.1.n > 0 }
        guard !rows.isEmpty else { return nil }
        var low = rows.compactMap(\.1.min).min() ?? 0
        var high = rows.compactMap(\.1.max).max() ?? 1
        if high - low < 1e-9 { (low, high) = (low - 1, high + 1) }
        let ticks = niceTicks(low: low, high: high)
        let domain = (Swift.min(ticks.first ?? low, low), Swift.max(ticks.last ?? high, high))
        let plotLeft = labelWidth
        let plotRight = width - 24
        func xOf(_ v: Double) -> Double {
            plotLeft + (v - domain.0) / (domain.1 - domain.0) * (plotRight - plotLeft)
        }
        let rowHeight = 44.0
        let top = 4.0

        var body = ""
        var thinned: [String] = []
        for (row, (kind, stats)) in rows.enumerated() {
            let center = top + Double(row) * rowHeight + rowHeight / 2
            body += text(kind.kind.rawValue, x: 0, y: center + 4, className: "axis-label")
            if let p25 = stats.p25, let p75 = stats.p75 {
                let width = Swift.max(1, xOf(p75) - xOf(p25))
                body += HTMLText.empty(
                    "rect", ["x": n(xOf(p25)), "y": n(center - 16), "width": n(width), "height": "32", "class": "iqr"])
            }
            let measured = kind.points.filter { !$0.status.isFailure && $0[metric]?.isFinite == true }
            let step = (measured.count + maxDotsPerRow - 1) / maxDotsPerRow
            if step > 1 { thinned.append("\(kind.kind.rawValue): every \(ordinal(step)) of \(measured.count)") }
            for (index, point) in measured.enumerated() where index % Swift.max(1, step) == 0 {
                guard let value = point[metric] else { continue }
                // Golden-ratio jitter: deterministic (the same file every time) and evenly spread.
                let jitter = ((Double(index) * 0.618033988749895).truncatingRemainder(dividingBy: 1) - 0.5) * 26
                let launch =
                    point.launchIndex > 0 ? "\(point.iteration).\(point.launchIndex)" : "\(point.iteration)"
                let tip = "\(kind.kind.rawValue) #\(launch): \(ReportText.ms(value)) ms"
                let dot: KeyValuePairs = [
                    "cx": n(xOf(value)), "cy": n(center + jitter), "r": "3.5",
                    "fill": kindColors[kind.kind] ?? "#333333",
                    "fill-opacity": "0.6",
                ]
                body += HTMLText.element("circle", dot, HTMLText.text("title", tip))
            }
            if let median = stats.median {
                body += line(xOf(median), center - 18, xOf(median), center + 18, className: "median")
            }
        }
        let axisY = top + Double(rows.count) * rowHeight + 4
        body += line(plotLeft, axisY, plotRight, axisY, className: "axis")
        for tick in ticks {
            body += line(xOf(tick), axisY, xOf(tick), axisY + 5, className: "axis")
            let label = DecimalText.fixed(tick, maxFractionDigits: 3)
            body += text(label, x: xOf(tick), y: axisY + 18, className: "tick", anchor: "middle")
        }
        let title =
            "\(metric.title) (ms)" + (thinned.isEmpty ? "" : " · dots drawn: " + thinned.joined(separator: ", "))
        body += text(title, x: (plotLeft + plotRight) / 2, y: axisY + 36, className: "axis-title", anchor: "middle")
        return svg(height: axisY + 44, label: "Every launch's \(metric.title), cold and warm", body: body)
    }

    /// `2nd`, `13th`, `21st`.
    static func ordinal(_ n: Int) -> String {
        let suffix: String
        switch (n % 10, n % 100) {
        case (_, 11...13): suffix = "th"
        case (1, _): suffix = "st"
        case (2, _): suffix = "nd"
        case (3, _): suffix = "rd"
        default: suffix = "th"
        }
        return "\(n)\(suffix)"
    }

    /// About five round tick values (1, 2 or 5 × 10ᵏ apart) from at or below `low` to at or above `high`.
    static func niceTicks(low: Double, high: Double, count: Int = 5) -> [Double] {
        let raw = (high - low) / Double(count)
        guard raw > 0, raw.isFinite else { return [low] }
        let magnitude = pow(10, log10(raw).rounded(.down))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
        var value = (low / step).rounded(.down) * step
        var ticks: [Double] = []
        while value <= high + step * 1e-9 && ticks.count < 20 {
            ticks.append(value)
            value += step
        }
        if let last = ticks.last, last < high - step * 1e-9 { ticks.append(last + step) }
        return ticks
    }

    private static func color(of phase: String) -> String { phaseColors[phase] ?? "#777777" }

    private static func svg(height: Double, label: String, body: String) -> String {
        let attributes: KeyValuePairs = [
            "xmlns": "http://www.w3.org/2000/svg", "class": "chart", "viewBox": "0 0 \(n(width)) \(n(height))",
            "width": n(width), "height": n(height), "role": "img", "aria-label": label,
        ]
        return HTMLText.element("svg", attributes, body)
    }

    private static func text(_ content: String, x: Double, y: Double, className: String, anchor: String = "start")
        -> String
    {
        HTMLText.text("text", ["x": n(x), "y": n(y), "class": className, "text-anchor": anchor], content)
    }

    private static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, className: String) -> String {
        HTMLText.empty("line", ["x1": n(x1), "y1": n(y1), "x2": n(x2), "y2": n(y2), "class": className])
    }

    /// A coordinate: two decimals at most, `.` always.
    private static func n(_ value: Double) -> String { DecimalText.fixed(value, maxFractionDigits: 2) }
}
