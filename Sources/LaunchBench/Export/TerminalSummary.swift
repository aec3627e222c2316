/// The summary `launchbench run` prints when it ends: per device and launch kind, the median,
/// p90, CV, n and failures of the metrics that say how long a launch took.
package enum TerminalSummary {
    /// - Parameters:
    ///   - summary: the statistics of the run.
    ///   - color: ANSI colours (bold device names, yellow for noisy rows with CV ≥ `noisyCVPercent`,
    ///     red for rows with failed launches). Pass `true` only on a terminal and never when
    ///     `NO_COLOR` is set; the executable's `Terminal.colorEnabled(for:)` decides.
    ///   - notes: the reader's notes, printed after the tables.
    /// - Returns: lines ending in `\n`, for stdout.
    package static func render(_ summary: RunSummary, color: Bool, notes: [String] = [], noisyCVPercent: Double = 10)
        -> String
    {
        let style = Style(enabled: color)
        var out = ""
        if summary.devices.isEmpty { out += "No launches were measured.\n" }
        for device in summary.devices {
            out +=
                style.bold(ReportText.printable(device.device.name)) + "  "
                + style.dim(ReportText.printable(ReportText.deviceLine(device.device))) + "\n"
            for remark in device.remarks { out += "  " + ReportText.printable(remark) + "\n" }
            let metrics = device.keyMetrics
            if metrics.isEmpty { out += "  Nothing was measured on this device.\n" }
            var table = TextTable(
                headers: ["kind", "metric", "median ms", "p90 ms", "cv %", "n", "failures"],
                alignments: [.left, .left, .right, .right, .right, .right, .right])
            var rowStyles: [(String) -> String] = []
            for kind in device.kinds {
                for metric in metrics {
                    guard let s = kind.metrics[metric] else { continue }
                    table.append([
                        kind.kind.rawValue, metric.title, ReportText.ms(s.median), ReportText.ms(s.p90),
                        ReportText.percent(s.cvPercent), String(s.n), String(s.failures),
                    ])
                    if s.failures > 0 {
                        rowStyles.append(style.red)
                    } else if let cv = s.cvPercent, cv >= noisyCVPercent {
                        rowStyles.append(style.yellow)
                    } else {
                        rowStyles.append { $0 }
                    }
                }
            }
            if !table.rows.isEmpty {
                let lines = table.render().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                out += "  " + style.dim(lines[0]) + "\n"
                for (line, paint) in zip(lines.dropFirst(), rowStyles) { out += "  " + paint(line) + "\n" }
            }
            if let causes = LaunchCauses(device) {
                for line in Self.causeLines(causes) { out += "  " + ReportText.printable(line) + "\n" }
            }
            if let line = Self.pageInLine(device) { out += "  " + ReportText.printable(line) + "\n" }
            for remark in ReportText.launchRemarks(device) {
                out += "  " + (remark.isFailure ? style.red(remark.text) : remark.text) + "\n"
            }
            out += "\n"
        }
        for note in notes { out += style.yellow("note: " + ReportText.printable(note)) + "\n" }
        return out
    }

    /// Phases, embedded dylibs and slowest initializers, each only when something was captured.
    static func causeLines(_ causes: LaunchCauses) -> [String] {
        var lines: [String] = []
        if let phases = causes.phaseLine { lines.append("\(causes.kind.rawValue) phases (median): \(phases)") }
        if causes.images.launchesWithLibraries > 0 { lines.append(causes.dylibLine) }
        if causes.images.launchesWithInitializerList > 0 { lines.append(causes.initializerLine(limit: 3)) }
        if let functions = causes.functionLine(limit: 3) { lines.append(functions) }
        return lines
    }

    /// `page-ins from exec to first frame (median): cold 144 (14.1 ms), warm 0; most in Sample (48), …`: the
    /// kinds whose page faults were traced, and the cold (else first) kind's images with the most.
    static func pageInLine(_ device: DeviceSummary) -> String? {
        let kinds = device.kinds.compactMap { kind -> String? in
            guard let count = kind.metrics[.pageIns]?.median else { return nil }
            let time = kind.metrics[.pageInMs]?.median.map { " (\(ReportText.ms($0)) ms)" } ?? ""
            return "\(kind.kind.rawValue) \(DecimalText.fixed(count, maxFractionDigits: 1))\(time)"
        }
        guard !kinds.isEmpty else { return nil }
        var line = "page-ins from exec to first frame (median): " + kinds.joined(separator: ", ")
        let traced =
            device.kinds.first { $0.kind == .cold && $0.metrics[.pageIns] != nil }
            ?? device.kinds.first { $0.metrics[.pageIns] != nil }
        let top = (traced?.images.images ?? []).filter { ($0.medianPageIns ?? 0) > 0 }
            .sorted { ($0.medianPageIns ?? 0, $1.image) > ($1.medianPageIns ?? 0, $0.image) }.prefix(3)
        if !top.isEmpty {
            line +=
                "; most in "
                + top.map { "\($0.image) (\(DecimalText.fixed($0.medianPageIns ?? 0, maxFractionDigits: 1)))" }
                .joined(separator: ", ")
        }
        return line
    }

    private struct Style {
        var enabled: Bool
        func wrap(_ code: String, _ text: String) -> String { enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
        func bold(_ text: String) -> String { wrap("1", text) }
        func dim(_ text: String) -> String { wrap("2", text) }
        var red: (String) -> String { { wrap("31", $0) } }
        var yellow: (String) -> String { { wrap("33", $0) } }
    }
}
