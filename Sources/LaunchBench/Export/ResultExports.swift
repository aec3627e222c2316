import Foundation

/// The exports of a results folder: what `launchbench run` writes when it ends and what
/// `launchbench report DIR` regenerates from `samples.jsonl` (so an interrupted or remote run
/// can be reported later). Both go through `writeAll(resultsFolder:)`.
package enum ResultExports {
    /// What `writeAll` read and wrote.
    package struct Outcome: Sendable {
        /// The folder as read back (manifest, samples, notes).
        package var folder: ResultsFolder
        /// The statistics computed from the folder's samples, as the exports show them.
        package var summary: RunSummary
        /// The files written, in order.
        package var written: [URL]
        /// Every sample in file order when `keepingSamples` was asked for, else empty.
        package var samples: [Sample]
    }

    /// Reads `run.json` and `samples.jsonl` from `resultsFolder` and (re)writes `samples.csv`,
    /// `summary.csv`, `images.csv`, `initializers.csv`, `summary.json` and `report.html` there, each atomically. One pass over
    /// the samples, none of them kept: `samples.csv` is written row by row as they are read.
    ///
    /// - Parameters:
    ///   - resultsFolder: the run's output folder.
    ///   - keepingSamples: also return every sample, for a gate over the run that would otherwise read the
    ///     folder again (memory then grows with the launches).
    /// - Returns: what was read (for the end-of-run summary: `TerminalSummary.render(outcome.summary, …)`)
    ///   and the files written.
    /// - Throws: `LaunchBenchError.fileNotFound` (no folder or no `samples.jsonl`),
    ///   `.unreadableResults`, `.cannotWrite`.
    @discardableResult
    package static func writeAll(resultsFolder: URL, keepingSamples: Bool = false) throws -> Outcome {
        try ResultsFolder.requireFolder(resultsFolder)  // before samples.csv is started in it
        let samplesCSV = resultsFolder.appendingPathComponent(ResultsFolder.FileName.samplesCSV)
        let rows = try SamplesCSV.FileWriter(url: samplesCSV)
        var samples: [Sample] = []
        let folder = try ResultsFolder.load(resultsFolder) { sample in
            try rows.append(sample)
            if keepingSamples { samples.append(sample) }
        }
        try rows.finish()
        var written = [samplesCSV]
        for format in ExportFile.allCases {
            let url = folder.url.appendingPathComponent(format.fileName)
            try write(try format.data(folder, summary: folder.summary), to: url)
            written.append(url)
        }
        return Outcome(folder: folder, summary: folder.summary, written: written, samples: samples)
    }

    /// Rewrites `report.html` with the gate's comparison (the section "Against the baseline"): what a run against
    /// a baseline, and `report DIR --baseline B`, do once the gate has judged the folder's launches.
    /// - Throws: `LaunchBenchError.cannotWrite`.
    package static func writeReportHTML(_ folder: ResultsFolder, summary: RunSummary, gate: GateReport) throws {
        try write(
            Data(HTMLReport.render(folder, summary: summary, gate: gate).utf8),
            to: folder.url.appendingPathComponent(ResultsFolder.FileName.reportHTML))
    }

    /// Writes `data` atomically (a reader never sees half a file).
    /// - Throws: `LaunchBenchError.cannotWrite`.
    package static func write(_ data: Data, to url: URL) throws {
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw LaunchBenchError.cannotWrite(path: url.path, reason: error.localizedDescription)
        }
    }
}

/// The files `ResultExports.writeAll` makes from a folder's summary (it writes `samples.csv` too, row by row as
/// the samples are read: `SamplesCSV.FileWriter`).
package enum ExportFile: Sendable, CaseIterable {
    case summaryCSV, imagesCSV, initializersCSV, summaryJSON, reportHTML

    /// The file's name inside the results folder (`samples.csv`, `summary.json`, …).
    package var fileName: String {
        switch self {
        case .summaryCSV: return ResultsFolder.FileName.summaryCSV
        case .imagesCSV: return ResultsFolder.FileName.imagesCSV
        case .initializersCSV: return ResultsFolder.FileName.initializersCSV
        case .summaryJSON: return ResultsFolder.FileName.summaryJSON
        case .reportHTML: return ResultsFolder.FileName.reportHTML
        }
    }

    /// The file's bytes. CSV files in the results folder start with a UTF-8 BOM (see `CSVWriter.data`).
    package func data(_ folder: ResultsFolder, summary: RunSummary) throws -> Data {
        switch self {
        case .summaryCSV: return SummaryCSV.csv(summary).data(byteOrderMark: true)
        case .imagesCSV: return ImagesCSV.csv(summary).data(byteOrderMark: true)
        case .initializersCSV: return InitializersCSV.csv(summary).data(byteOrderMark: true)
        case .summaryJSON: return try SummaryDocument(folder: folder, summary: summary).jsonData()
        case .reportHTML: return Data(HTMLReport.render(folder, summary: summary).utf8)
        }
    }
}

/// What `launchbench report DIR --format` prints.
package enum ReportFormat: String, Sendable, CaseIterable {
    /// Plain-text tables per device (the default).
    case table
    /// `summary.csv`.
    case csv
    /// `summary.json`.
    case json
    /// A GitHub-flavoured Markdown table (pull-request comment, `$GITHUB_STEP_SUMMARY`).
    case markdown
    /// `report.html`.
    case html

    /// The report as bytes.
    /// - Parameters:
    ///   - gate: for `html` only: the comparison with a baseline (`report --baseline`), shown in its own section.
    ///   - byteOrderMark: for `csv` only: start with a UTF-8 BOM (for a file a spreadsheet will open), or not
    ///     (stdout, pipes).
    package func render(
        _ folder: ResultsFolder, summary: RunSummary, gate: GateReport? = nil, byteOrderMark: Bool = false
    ) throws -> Data {
        switch self {
        case .table: return Data(SummaryTextReport.render(summary, notes: folder.notes).utf8)
        case .csv: return SummaryCSV.csv(summary).data(byteOrderMark: byteOrderMark)
        case .json: return try SummaryDocument(folder: folder, summary: summary).jsonData()
        case .markdown: return Data(MarkdownReport.render(summary, manifest: folder.manifest, notes: folder.notes).utf8)
        case .html: return Data(HTMLReport.render(folder, summary: summary, gate: gate).utf8)
        }
    }
}
