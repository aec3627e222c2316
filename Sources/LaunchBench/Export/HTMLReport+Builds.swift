import Foundation

extension HTMLReport {
    /// An A/B run's section (`run NEW --against BASE`): both builds, and per device × kind × metric the pairs,
    /// each build's median, the shift, the smallest change the pairs could show and the verdict. Empty for any
    /// other folder; a note when DIR/base/ cannot be read.
    static func buildsSection(_ folder: ResultsFolder) -> String {
        guard folder.manifest?.isABRun == true else { return "" }
        let paired: PairedComparison
        do {
            let input = try GateInput.load(path: folder.url.path, role: .current)
            guard let comparison = try GateCheck(settings: GateSettings()).report(current: input).paired else {
                return ""
            }
            paired = comparison
        } catch {
            return HTMLText.element(
                "section", ["class": "notes"],
                "<h2>NEW against BASE</h2>"
                    + HTMLText.text("p", "The base build's launches could not be read: \(error.localizedDescription)"))
                + "\n"
        }
        var content = "<h2>NEW against BASE</h2>" + HTMLText.text("p", PairedText.headerLine(paired))
        let builds = paired.builds.map { build in
            HTMLText.text(
                "li",
                "\((build.role ?? "").uppercased()): \(build.path ?? "") \(build.version ?? "")"
                    + (build.digest.map { " · digest \($0)" } ?? ""))
        }
        if !builds.isEmpty { content += HTMLText.element("ul", [:], builds.joined()) }
        let head = "<thead><tr>" + PairedText.headers.map { HTMLText.text("th", $0) }.joined() + "</tr></thead>"
        let rows = paired.entries.map { entry in
            let cells = PairedText.cells(entry)
            return HTMLText.element(
                "tr", [:],
                cells.enumerated().map { index, cell in
                    index == cells.count - 1 && entry.verdict == .regression
                        ? HTMLText.text("td", ["class": "bad"], cell) : HTMLText.text("td", cell)
                }.joined())
        }
        content += HTMLText.element(
            "div", ["class": "scroll"],
            HTMLText.element("table", ["class": "summary"], head + "<tbody>" + rows.joined() + "</tbody>"))
        let lines = (paired.entries.map(PairedText.line) + paired.notes).map { HTMLText.text("li", $0) }
        if !lines.isEmpty { content += HTMLText.element("ul", [:], lines.joined()) }
        content += pairedWhy(paired.entries)
        content += HTMLText.text(
            "p", "The device sections below are NEW's launches; BASE's are in base/report.html.")
        return HTMLText.element("section", ["class": "builds"], content) + "\n"
    }

    /// Per device × kind, what changed between BASE and NEW (``explanationBlock``, as the baseline section says
    /// it): in full when the pairs judged a metric slower or faster, else the images, initializer functions and
    /// page-ins that changed by themselves.
    static func pairedWhy(_ entries: [PairedEntry]) -> String {
        var seen: Set<[String]> = []
        var blocks: [String] = []
        for entry in entries {
            guard let explanation = entry.explanation, seen.insert([entry.device.udid, entry.kind.rawValue]).inserted
            else { continue }
            let moved = entries.contains {
                $0.device.udid == entry.device.udid && $0.kind == entry.kind
                    && ($0.verdict == .regression || $0.verdict == .improvement)
            }
            let title = "\(entry.device.name) · \(entry.kind.rawValue)"
            if let block = explanationBlock(
                explanation, title: title, sentence: explanation.sentence(totalShiftMs: nil), withPhases: moved)
            {
                blocks.append(block)
            }
        }
        return blocks.isEmpty ? "" : "<h3>What changed, NEW against BASE</h3>" + blocks.joined()
    }
}
