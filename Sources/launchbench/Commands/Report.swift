import ArgumentParser
import Foundation
import LaunchBench

/// `launchbench report DIR`: statistics and exports from a results folder, measured now or long ago.
struct Report: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Report a results folder: rewrite its exports from samples.jsonl and print a summary.",
        discussion: """
            Reads DIR/run.json (optional) and DIR/samples.jsonl, rewrites DIR/samples.csv, summary.csv, \
            images.csv, summary.json and report.html (the same files `launchbench run` writes when it ends), then prints \
            the summary in the chosen format. So an interrupted or remote run can be reported later; a \
            half-written last line of samples.jsonl is skipped with a note. Use --print-only for a folder you \
            cannot or do not want to write to.

            Formats: table (per-device text tables), csv (summary.csv), json (summary.json), markdown (a \
            GitHub table for a pull-request comment or $GITHUB_STEP_SUMMARY), html (report.html). CSV written \
            to a file starts with a UTF-8 byte-order mark so Excel reads names correctly; on stdout it has none.

            --baseline B compares the folder with a baseline (a results folder or its summary.json) as `run \
            --baseline` does, with the gate's default threshold and test, and gives report.html (written or \
            printed) the section "Against the baseline": verdicts, and the phases, images, initializer functions \
            and page-ins that changed. Without it report.html has no such section, even for a folder a run \
            compared with a baseline (the folder does not keep the comparison; `compare` prints it again).

            An A/B run's folder (`run NEW --against BASE`): DIR/base/'s exports are rewritten too, and the table \
            shows BASE's summary and the paired verdict (NEW against BASE) after NEW's; `compare DIR` exits with it.
            """
    )

    @Argument(help: "The results folder (the --output of `launchbench run`).", completion: .directory)
    var directory: String

    @Option(help: "What to print: \(ReportFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
    var format: ReportFormat = .table

    @Option(name: .shortAndLong, help: "Write the report to this file instead of stdout.", completion: .file())
    var output: String?

    @Flag(help: "Only print; do not rewrite the exports in DIR.")
    var printOnly = false

    @Option(
        help: ArgumentHelp(
            "Compare with this baseline (results folder or summary.json) in report.html, as run --baseline does.",
            valueName: "path"),
        completion: .file())
    var baseline: String?

    func validate() throws {
        try OutputPaths.checkFile(output, option: "--output", example: "report.txt")
    }

    func run() async throws {
        let folderURL = URL(fileURLWithPath: directory, isDirectory: true)
        let folder: ResultsFolder
        if printOnly {
            folder = try ResultsFolder.load(folderURL)
        } else {
            // One pass: the exports are written as the folder is read.
            let outcome: ResultExports.Outcome
            do {
                outcome = try ResultExports.writeAll(resultsFolder: folderURL)
            } catch let error as LaunchBenchError {
                if case .cannotWrite = error {
                    Terminal.note(
                        "report: the exports could not be rewritten; pass --print-only to report a folder you cannot"
                            + " write to.")
                }
                throw error
            }
            folder = outcome.folder
            Terminal.note(
                "report: wrote \(outcome.written.map(\.lastPathComponent).joined(separator: ", ")) in \(folderURL.path)"
            )
        }
        let summary = folder.summary
        let gate = try baseline.map { path in
            try GateCheck(baseline: try GateInput.load(path: path, role: .baseline), settings: GateSettings())
                .report(current: try GateInput.load(path: folderURL.path, role: .current))
        }
        if let gate, !printOnly {
            try ResultExports.writeReportHTML(folder, summary: summary, gate: gate)
        }
        // The table carries the notes itself; other formats keep them in the document or, for CSV, nowhere.
        if format != .table {
            for note in folder.notes { Terminal.note("note: \(note)") }
        }
        if let output {
            let url = URL(fileURLWithPath: output)
            try ResultExports.write(
                try format.render(folder, summary: summary, gate: gate, byteOrderMark: true), to: url)
            Terminal.note("report: wrote \(url.path)")
        } else {
            Terminal.output(try format.render(folder, summary: summary, gate: gate, byteOrderMark: false))
        }
        try reportBaseBuild(of: folderURL, color: Terminal.colorEnabled(for: STDOUT_FILENO))
    }
}

extension ReportFormat: ExpressibleByArgument {}
