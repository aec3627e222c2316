import ArgumentParser
import Foundation
import LaunchBench

/// `launchbench compare BASELINE CURRENT`: the CI gate over two results folders.
struct Compare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare a run with a baseline and fail when launch got slower (the CI gate).",
        discussion: """
            BASELINE and CURRENT are results folders of `launchbench run` (or their summary.json; the launches \
            are read from the samples.jsonl next to it). Devices are matched by UDID, else by model and iOS \
            version. For each matched device x launch kind x metric (default: total_premain_ms where measured, \
            else first_frame_ms, else wall_ms) the gate compares the medians, runs a two-sided Mann-Whitney U \
            test and estimates the Hodges-Lehmann shift with its 95 % interval. A regression is a shift above \
            the threshold that is significant at 0.05; launch-to-launch noise alone does not fail the build.

            `compare DIR` with one folder judges an A/B run (`run NEW --against BASE`): NEW against BASE from \
            the pairs of each iteration, as the run did; `compare BASELINE DIR` adds that paired verdict to the \
            comparison of DIR's NEW build with BASELINE.

            Exit codes: 0 no regression, 2 regression (or an unlisted dylib with --allowed-dylibs), 3 could not \
            judge (too many failed launches, too few launches, no matching device), 5 baseline not found, \
            64 bad options.
            """
    )

    @Argument(
        help: "The baseline results folder (or its summary.json); alone, an A/B run's folder (`run --against`).",
        completion: .file())
    var baseline: String

    @Argument(help: "The current results folder (or its summary.json).", completion: .file())
    var current: String?

    @OptionGroup var check: GateCheckOptions<CompareHelp>

    @Option(help: "Output format: table, markdown, json or junit.")
    var format: GateFormat = .table

    @Option(
        name: .shortAndLong, help: ArgumentHelp("Write the report to this file instead of stdout.", valueName: "file"),
        completion: .file())
    var output: String?

    func validate() throws {
        try OutputPaths.checkFile(output, option: "--output", example: "gate.txt")
    }

    func run() async throws {
        let allowed = try check.allowedDylibs.map { try AllowedDylibs.read(from: URL(fileURLWithPath: $0)) }
        let report: GateReport
        if let current {
            let gate = GateCheck(
                baseline: try GateInput.load(path: baseline, role: .baseline), settings: check.settings,
                allowed: allowed)
            report = try gate.report(current: try GateInput.load(path: current, role: .current))
        } else {
            // One folder: an A/B run's, judged NEW against BASE from its own pairs.
            let base = URL(fileURLWithPath: baseline).appendingPathComponent(RunManifest.baseFolderName)
                .appendingPathComponent(ResultsFolder.FileName.samples)
            guard FileManager.default.fileExists(atPath: base.path) else {
                throw ValidationError(
                    "compare needs BASELINE and CURRENT, or one A/B run's folder; \(baseline) has no "
                        + "base/samples.jsonl (from `run NEW --against BASE`).")
            }
            let folder = try GateInput.load(path: baseline, role: .current)
            report = try GateCheck(settings: check.settings, allowed: allowed).report(current: folder)
        }
        try GateOutput.write(report, format: format, to: output, junit: check.junit, markdown: check.markdown)
        if report.outcome != .passed { throw ExitCode(ExitStatus(report.outcome)) }
    }
}

/// The gate's output formats.
enum GateFormat: String, CaseIterable, ExpressibleByArgument {
    case table, markdown, json, junit

    func render(_ report: GateReport) -> String {
        switch self {
        case .table: return GateTableReport.render(report)
        case .markdown: return GateMarkdownReport.render(report)
        case .json: return GateJSONReport.render(report, exitCode: ExitStatus(report.outcome).rawValue)
        case .junit: return GateJUnitReport.render(report)
        }
    }
}

/// Prints or writes the gate's report (shared by `compare` and `run --baseline`).
enum GateOutput {
    static func write(_ report: GateReport, format: GateFormat, to output: String?, junit: String?, markdown: String?)
        throws
    {
        if let output {
            try save(format.render(report), to: output)
            Terminal.note(report.headline)
        } else {
            Terminal.output(format.render(report))
            if format != .table && format != .markdown { Terminal.note(report.headline) }
        }
        if let junit { try save(GateFormat.junit.render(report), to: junit) }
        if let markdown { try save(GateFormat.markdown.render(report), to: markdown, append: true) }
    }

    /// `append` for `$GITHUB_STEP_SUMMARY`, which other steps write too.
    private static func save(_ text: String, to path: String, append: Bool = false) throws {
        let url = URL(fileURLWithPath: path)
        do {
            if append, let handle = try? FileHandle(forWritingTo: url) {
                defer { try? handle.close() }
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(text.utf8))
            } else {
                try Data(text.utf8).write(to: url, options: .atomic)
            }
        } catch {
            throw LaunchBenchError.cannotWrite(path: url.path, reason: error.localizedDescription)
        }
    }
}
