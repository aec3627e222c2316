/// One device's part of `report.html`: remarks, headline cards, phase bars, strip plot, table.
struct DeviceSection {
    var device: DeviceSummary
    var metrics: [Metric]

    func render(id: String) -> String {
        var html = HTMLText.text("h2", device.device.name.isEmpty ? device.device.udid : device.device.name)
        html += HTMLText.text("p", ["class": "device-line"], ReportText.deviceLine(device.device))
        html += remarks()
        if let headline = device.headlineMetric {
            html += cards(headline) + phases() + causes() + spread(headline) + table()
        } else {
            html += HTMLText.text("p", ["class": "empty"], "Nothing was measured on this device.")
        }
        html += messages()
        return HTMLText.element("section", ["class": "device", "id": id], html) + "\n"
    }

    /// `run.json`'s notes on the device (its launch timelines folder as a link), then its failed and unmeasured
    /// launches.
    private func remarks() -> String {
        let traces = ResultsFolder.tracesFolder(device.device.udid)
        let link = HTMLText.text("a", ["href": traces], traces)
        var html = device.remarks.map { remark in
            let text = HTMLText.escape(remark).replacingOccurrences(of: HTMLText.escape(traces), with: link)
            return HTMLText.element("p", ["class": "remark"], text)
        }.joined()
        for remark in ReportText.launchRemarks(device) {
            html += HTMLText.text("p", ["class": remark.isFailure ? "remark bad" : "remark"], remark.text)
        }
        return html
    }

    /// Failure messages and parser warnings, collapsed (the raw logs hold the rest).
    private func messages() -> String {
        guard !device.messages.isEmpty else { return "" }
        let limit = 50
        var items = device.messages.prefix(limit).map { message in
            let count = message.launches == 1 ? "1 launch" : "\(message.launches) launches"
            return HTMLText.text("li", "\(message.text) (\(count))")
        }
        if device.messages.count > limit {
            items.append(HTMLText.text("li", "… \(device.messages.count - limit) more in samples.jsonl"))
        }
        let summary = HTMLText.text("summary", "Messages from the launches (\(device.messages.count))")
        return HTMLText.element("details", ["class": "messages"], summary + HTMLText.element("ul", [:], items.joined()))
            + "\n"
    }

    /// The headline metric's median, p90, CV and n per launch kind.
    private func cards(_ headline: Metric) -> String {
        let cards = device.kinds.compactMap { kind -> String? in
            guard let s = kind.metrics[headline] else { return nil }
            var detail = HTMLText.escape(
                "p90 \(ReportText.ms(s.p90)) ms · CV \(ReportText.percent(s.cvPercent)) % · n = \(s.n)")
            if kind.failures > 0 {
                detail += " · " + HTMLText.text("span", ["class": "bad"], "\(kind.failures) failed")
            }
            return HTMLText.element(
                "div", ["class": "card \(kind.kind.rawValue)"],
                HTMLText.text("div", ["class": "card-kind"], "\(kind.kind.rawValue) · \(headline.title)")
                    + HTMLText.element(
                        "div", ["class": "card-value"], ReportText.ms(s.median) + " <small>ms median</small>")
                    + HTMLText.element("div", ["class": "card-detail"], detail))
        }
        return HTMLText.element("div", ["class": "cards"], cards.joined()) + "\n"
    }

    private func phases() -> String {
        var html = "<h3>Where the time goes</h3>"
        if let bars = HTMLCharts.phaseBars(device) {
            let caption =
                "Each segment is the median of that phase over the launches that measured it; medians"
                + " of the parts need not add up to the median of the whole."
            html += HTMLText.element("figure", [:], bars + HTMLText.text("figcaption", caption))
        } else {
            let text = "No phase timings were measured on this device (no dyld statistics and no app markers)."
            html += HTMLText.text("p", ["class": "empty"], text)
        }
        return html + "\n"
    }

    /// "What to look at": each phase's share, the embedded dylib count against Apple's advice, the
    /// slowest initializers by image (see `LaunchCauses`).
    private func causes() -> String {
        guard let causes = LaunchCauses(device) else { return "" }
        var items: [String] = []
        if !causes.phases.isEmpty {
            let shares = causes.phases.map { phase in
                HTMLText.text(
                    "li",
                    "\(phase.name): \(ReportText.ms(phase.medianMs)) ms, "
                        + "\(DecimalText.fixed(phase.percent, maxFractionDigits: 0)) % of the phases' sum")
            }
            items.append(
                HTMLText.element(
                    "li", [:],
                    HTMLText.escape("Where the \(causes.kind.rawValue) launch's time goes:")
                        + HTMLText.element("ul", [:], shares.joined())))
        }
        let tooMany = causes.images.bundleDylibs.count > ImageStatistics.advisedBundleDylibs
        items.append(HTMLText.text("li", tooMany ? ["class": "bad"] : [:], causes.dylibLine))
        if let pageIns = TerminalSummary.pageInLine(device) { items.append(HTMLText.text("li", pageIns)) }
        html: do {
            let top = causes.images.initializers.prefix(8)
            guard causes.images.launchesWithInitializerList > 0, !top.isEmpty else {
                items.append(HTMLText.text("li", causes.initializerLine()))
                break html
            }
            let head =
                "<thead><tr>"
                + ["image", "in bundle", "median ms", "p90 ms", "listed in"]
                .map { HTMLText.text("th", $0) }.joined() + "</tr></thead>"
            let rows = top.map { image in
                HTMLText.element(
                    "tr", [:],
                    HTMLText.element("td", [:], HTMLText.text("code", image.image))
                        + HTMLText.text("td", image.inBundle ? "yes" : "no")
                        + HTMLText.text("td", ReportText.ms(image.medianInitializerMs))
                        + HTMLText.text("td", ReportText.ms(image.p90InitializerMs))
                        + HTMLText.text("td", "\(image.launchesListed) of \(causes.images.launchesWithInitializerList)")
                )
            }
            items.append(
                HTMLText.element(
                    "li", [:],
                    HTMLText.escape("Slowest initializers by image:")
                        + HTMLText.element("table", ["class": "summary"], head + "<tbody>" + rows.joined() + "</tbody>")
                        + HTMLText.text("p", ["class": "muted"], ImageStatistics.thresholdNote)))
        }
        if let functions = initializerFunctionsItem(causes) { items.append(functions) }
        return "<h3>What to look at</h3>" + HTMLText.element("ul", ["class": "causes"], items.joined()) + "\n"
    }

    private func spread(_ headline: Metric) -> String {
        guard let strip = HTMLCharts.stripPlot(device, metric: headline) else { return "" }
        let caption =
            "One dot per measured launch of \(headline.title); the shaded box spans p25–p75, the line is"
            + " the median. Failed launches have no value to show."
        return "<h3>Every launch</h3>" + HTMLText.element("figure", [:], strip + HTMLText.text("figcaption", caption))
            + "\n"
    }

    /// Every measured metric's statistics; metrics nobody measured on this device are named below.
    private func table() -> String {
        let (measured, unmeasured) = device.measuredRows(of: metrics)
        let rows = measured.map { HTMLText.element("tr", [:], cells($0.kind, $0.metric, $0.statistics)) }
        let titles = [
            "kind", "metric", "n", "failures", "min", "p25", "median", "mean", "p75", "p90", "max", "stddev", "CV %",
            "95% CI of median",
        ]
        let head = "<thead><tr>" + titles.map { HTMLText.text("th", $0) }.joined() + "</tr></thead>"
        var html = "<h3>Summary</h3>"
        html += HTMLText.element(
            "div", ["class": "scroll"],
            HTMLText.element("table", ["class": "summary"], head + "<tbody>" + rows.joined() + "</tbody>"))
        if !unmeasured.isEmpty {
            let names = unmeasured.map { HTMLText.text("code", $0.rawValue) }.joined(separator: ", ")
            html += HTMLText.element("p", ["class": "empty"], "Not measured on this device: \(names).")
        }
        return html + "\n"
    }

    private func cells(_ kind: LaunchKind, _ metric: Metric, _ s: MetricStatistics) -> String {
        var html =
            HTMLText.text("td", kind.rawValue) + HTMLText.element("td", [:], HTMLText.text("code", metric.rawValue))
        html += HTMLText.text("td", String(s.n))
        html += HTMLText.text("td", s.failures > 0 ? ["class": "bad"] : [:], String(s.failures))
        for value in [s.min, s.p25, s.median, s.mean, s.p75, s.p90, s.max, s.stddev] {
            html += HTMLText.text("td", ReportText.ms(value))
        }
        html += HTMLText.text("td", ReportText.percent(s.cvPercent))
        if let ci = s.ci95 {
            let coverage = DecimalText.exact(ci.coverage * 100, fractionDigits: 1)
            let tip = "x(\(ci.lowerRank)) to x(\(ci.upperRank)) of \(s.n): \(coverage) % coverage"
            html += HTMLText.text("td", ["title": tip], "\(ReportText.ms(ci.low))–\(ReportText.ms(ci.high))")
        } else {
            html += HTMLText.text("td", ["class": "muted"], "n < 6")
        }
        return html
    }
}
