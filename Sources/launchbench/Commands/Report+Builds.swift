import Foundation
import LaunchBench

extension Report {
    /// An A/B run's folder (`run NEW --against BASE`): rewrites DIR/base/'s exports too (unless `printOnly`) and,
    /// in the table format on stdout, prints BASE's summary and the paired verdict after NEW's. Returns without
    /// a word for any other folder.
    /// - Throws: what reading or writing DIR/base/ throws.
    func reportBaseBuild(of folderURL: URL, color: Bool) throws {
        let baseURL = folderURL.appendingPathComponent(RunManifest.baseFolderName, isDirectory: true)
        guard
            FileManager.default.fileExists(
                atPath: baseURL.appendingPathComponent(ResultsFolder.FileName.samples).path)
        else { return }
        let baseFolder: ResultsFolder
        if printOnly {
            baseFolder = try ResultsFolder.load(baseURL)
        } else {
            let outcome = try ResultExports.writeAll(resultsFolder: baseURL)
            baseFolder = outcome.folder
            Terminal.note(
                "report: wrote \(outcome.written.map(\.lastPathComponent).joined(separator: ", ")) in \(baseURL.path)")
        }
        guard format == .table, output == nil else { return }
        Terminal.output("\nBASE build (\(baseURL.path)):\n")
        Terminal.output(TerminalSummary.render(baseFolder.summary, color: color, notes: baseFolder.notes))
        let current = try GateInput.load(path: folderURL.path, role: .current)
        let report = try GateCheck(settings: GateSettings()).report(current: current)
        Terminal.output("\n" + GateTableReport.render(report))
    }
}
