import ArgumentParser
import Foundation
import LaunchBench

/// `launchbench trend DIR...`: launch times across many results folders (a CI artifact history).
struct TrendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trend",
        abstract: "Show launch times across many results folders, marking the steps the gate calls real.",
        discussion: """
            One point per results folder, in the order the runs started (run.json, else the first launch; \
            --order build: by the app's build number), \
            per device x launch kind x metric: the median with its 95 % interval and n. Devices are matched as \
            `compare` matches them (same UDID, else same model and iOS version). A point is a step when the \
            gate's test (Mann-Whitney U at 0.05, Hodges-Lehmann shift past --threshold) calls the change from \
            the previous run real. Folders that cannot be read are listed and skipped.

            Formats: markdown (default; a table per device x kind for total_premain_ms and first_frame_ms), \
            csv (every metric), html (a self-contained page with a line chart and interval band per series).
            """
    )

    @Argument(help: "Results folders (the --output of `launchbench run`), in any order.", completion: .directory)
    var directories: [String]

    @Option(help: "Output format: markdown, csv or html.")
    var format: TrendReport.Format = .markdown

    @Option(
        name: .shortAndLong, help: ArgumentHelp("Write to this file instead of stdout.", valueName: "file"),
        completion: .file())
    var output: String?

    @Option(help: "Order of the runs: time (when each run started) or build (the app's build number).")
    var order: Trend.Order = .time

    @Option(help: ArgumentHelp("Relative change of the median that counts as a step, in percent.", valueName: "pct"))
    var threshold: Double = 5

    @Option(
        name: .customLong("metric"),
        help: ArgumentHelp(
            "Metric to show (repeatable), e.g. first_frame_ms; default: all in CSV, the key ones in Markdown and HTML.",
            valueName: "name"))
    var metrics: [String] = []

    func validate() throws {
        guard !directories.isEmpty else { throw ValidationError("Name at least one results folder.") }
        try GateOptions.validate(threshold: threshold, metrics: metrics)
        try OutputPaths.checkFile(output, option: "--output", example: "trend.md")
    }

    func run() async throws {
        let trend = Trend(
            paths: directories, order: order,
            settings: GateSettings(thresholdPercent: threshold, metrics: metrics.compactMap(Metric.init(rawValue:))))
        for skipped in trend.skipped { Terminal.note("trend: skipped \(skipped.path): \(skipped.reason)") }
        for note in trend.folderNotes { Terminal.note("trend: note: \(note)") }
        guard !trend.runs.isEmpty else {
            throw CommandFailure(
                .failure,
                "none of the \(directories.count) folders could be read; pass the --output folders of "
                    + "`launchbench run`.")
        }
        let text = TrendReport.render(trend, format: format)
        let data = format == .csv && output != nil ? TrendReport.csv(trend).data(byteOrderMark: true) : Data(text.utf8)
        if let output {
            try ResultExports.write(data, to: URL(fileURLWithPath: output))
            Terminal.note("trend: wrote \(output) (\(trend.runs.count) runs, \(trend.series.count) series)")
        } else {
            FileHandle.standardOutput.write(data)
        }
    }
}

extension TrendReport.Format: ExpressibleByArgument {}
extension Trend.Order: ExpressibleByArgument {}
