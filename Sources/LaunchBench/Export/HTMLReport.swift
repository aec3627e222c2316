import Foundation

/// `report.html`: one self-contained page (inline CSS and SVG; no scripts, fonts or network) that
/// answers, per device: how long cold and warm launches take, in which phase the time goes, and
/// how noisy it is. The markup is well-formed XHTML syntax, so an XML parser can check it; every
/// text from a device, the app or `run.json` goes through `HTMLText.escape`.
package enum HTMLReport {
    /// - Parameters:
    ///   - folder: the results read back (for `run.json` and the notes).
    ///   - summary: the statistics of the folder's samples (`folder.summary`).
    ///   - gate: the gate's report when the run was compared with a baseline (`run --baseline`, `report
    ///     --baseline`): its comparison becomes the section "Against the baseline".
    package static func render(_ folder: ResultsFolder, summary: RunSummary, gate: GateReport? = nil) -> String {
        let title = appTitle(folder)
        var body = "<header>"
        body += HTMLText.element("h1", [:], "Launch times of " + HTMLText.text("span", ["class": "app"], title))
        body += HTMLText.text("p", ["class": "sub"], subtitle(folder, summary))
        body += "</header>\n"
        if !folder.notes.isEmpty {
            let items = folder.notes.map { HTMLText.text("li", $0) }.joined()
            body += HTMLText.element(
                "section", ["class": "notes"], "<h2>Notes</h2>" + HTMLText.element("ul", [:], items))
            body += "\n"
        }
        body += buildsSection(folder)
        body += baselineSection(gate)
        if summary.devices.isEmpty { body += HTMLText.text("p", ["class": "empty"], "No launches to report.") + "\n" }
        if summary.devices.count > 1 { body += overview(summary) }
        for (index, device) in summary.devices.enumerated() {
            body += DeviceSection(device: device, metrics: summary.metrics).render(id: "device-\(index + 1)")
        }
        body += runDetails(folder) + methodNote
        return HTMLText.page(title: "Launch times · \(title)", css: css, body: body)
    }

    /// The key numbers of every device in one table, each device linking to its section.
    private static func overview(_ summary: RunSummary) -> String {
        var rows: [String] = []
        for (index, device) in summary.devices.enumerated() {
            let name = device.device.name.isEmpty ? device.device.udid : device.device.name
            let link = HTMLText.element("a", ["href": "#device-\(index + 1)"], HTMLText.escape(name))
            let model = DeviceModels.marketingName(for: device.device.productType)
            let lead =
                HTMLText.element("td", ["class": "text"], link) + HTMLText.text("td", ["class": "text"], model)
                + HTMLText.text("td", ["class": "text"], device.device.osVersion)
            let failures = device.kinds.reduce(0) { $0 + $1.failures }
            if device.keyMetrics.isEmpty {
                let cells = ["–", "nothing measured", "–", "–", "–", "0", String(failures)]
                rows.append(HTMLText.element("tr", [:], lead + cells.map { HTMLText.text("td", $0) }.joined()))
            }
            for kind in device.kinds {
                for metric in device.keyMetrics {
                    guard let s = kind.metrics[metric] else { continue }
                    var cells = HTMLText.text("td", kind.kind.rawValue) + HTMLText.text("td", metric.title)
                    cells += HTMLText.text("td", ReportText.ms(s.median)) + HTMLText.text("td", ReportText.ms(s.p90))
                    cells += HTMLText.text("td", ReportText.percent(s.cvPercent)) + HTMLText.text("td", String(s.n))
                    cells += HTMLText.text("td", s.failures > 0 ? ["class": "bad"] : [:], String(s.failures))
                    rows.append(HTMLText.element("tr", [:], lead + cells))
                }
            }
        }
        let titles = ["device", "model", "iOS", "kind", "metric", "median ms", "p90 ms", "CV %", "n", "failures"]
        let head = "<thead><tr>" + titles.map { HTMLText.text("th", $0) }.joined() + "</tr></thead>"
        let table = HTMLText.element(
            "div", ["class": "scroll"],
            HTMLText.element("table", ["class": "summary overview"], head + "<tbody>" + rows.joined() + "</tbody>"))
        return HTMLText.element("section", ["class": "overview"], "<h2>Overview</h2>" + table) + "\n"
    }

    /// `com.example.app 2.3 (41)`.
    private static func appTitle(_ folder: ResultsFolder) -> String {
        let app = folder.manifest?.app
        let appID = app?.bundleID ?? folder.firstSample?.appBundleID ?? "unknown app"
        var version = app?.version ?? ""
        if let build = app?.build, !build.isEmpty { version += version.isEmpty ? build : " (\(build))" }
        if version.isEmpty { version = folder.firstSample?.appVersion ?? "" }
        return version.isEmpty ? appID : "\(appID) \(version)"
    }

    private static func subtitle(_ folder: ResultsFolder, _ summary: RunSummary) -> String {
        var parts = [
            "\(summary.devices.count) device\(summary.devices.count == 1 ? "" : "s")",
            "\(summary.launchCount) launches", "\(summary.failureCount) failed",
        ]
        if let started = folder.manifest?.startedAt ?? folder.earliestStart {
            parts.append("started \(timestamp(started))")
        }
        return parts.joined(separator: " · ")
    }

    /// The app, the run and the devices as `run.json` recorded them (what the samples say without it).
    private static func runDetails(_ folder: ResultsFolder) -> String {
        let manifest = folder.manifest
        let first = folder.firstSample
        var rows: [(String, String)] = [("App", manifest?.app?.bundleID ?? first?.appBundleID ?? "–")]
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
            let parts = [host.name, host.operatingSystem, host.architecture].compactMap { $0 }
            rows.append(("Host", parts.joined(separator: " · ")))
        }
        for option in manifest?.options?.descriptions ?? [] { rows.append(("Option \(option.name)", option.value)) }
        if let frameworks = manifest?.app?.frameworks, !frameworks.isEmpty {
            rows.append(("Embedded frameworks", frameworks.joined(separator: ", ")))
        }

        let meta = rows.map { HTMLText.element("tr", [:], HTMLText.text("th", $0.0) + HTMLText.text("td", $0.1)) }
        var html = "<h2>Run</h2>" + HTMLText.element("table", ["class": "meta"], "<tbody>" + meta.joined() + "</tbody>")
        if let devices = manifest?.devices, !devices.isEmpty {
            let header = ["name", "model", "iOS", "build", "UDID", "connection"].map { HTMLText.text("th", $0) }
            let body = devices.map { device in
                let identity = DeviceIdentity(
                    udid: device.udid, name: device.name, productType: device.productType, osVersion: device.osVersion)
                let cells = [
                    device.name, identity.modelDescription, device.osVersion, device.buildVersion, device.udid,
                    device.connection.rawValue,
                ]
                return HTMLText.element("tr", [:], cells.map { HTMLText.text("td", ["class": "text"], $0) }.joined())
            }
            let table = "<thead><tr>" + header.joined() + "</tr></thead><tbody>" + body.joined() + "</tbody>"
            html += "<h3>Devices</h3>"
            html += HTMLText.element("div", ["class": "scroll"], HTMLText.element("table", ["class": "summary"], table))
        }
        return HTMLText.element("section", ["class": "run"], html) + "\n"
    }

    private static let methodNote = """
        <footer><p><strong>Method.</strong> Every launch counts; failed launches (timeout, crash, install failure, …) \
        are counted as failures and never enter the numbers, and a value a launch did not measure is left out, not \
        taken as 0. Percentiles interpolate linearly between the sorted values (numpy's default, PERCENTILE.INC). \
        The standard deviation divides by n − 1; CV = standard deviation / mean. The 95 % interval of the median is \
        distribution-free: the order statistics x(k) and x(n−k+1) with k from the Binomial(n, ½) distribution \
        (hover a cell for its exact coverage); for fewer than 6 launches no such interval exists and none is shown.\
        </p></footer>

        """

    /// `2026-11-20 10:00:00 UTC`.
    static func timestamp(_ date: Date) -> String {
        let style = Date.ISO8601FormatStyle(
            dateSeparator: .dash, dateTimeSeparator: .space, timeSeparator: .colon, timeZoneSeparator: .omitted,
            includingFractionalSeconds: false, timeZone: TimeZone(identifier: "UTC")!)
        return date.formatted(style).replacingOccurrences(of: "Z", with: " UTC")
    }
}
