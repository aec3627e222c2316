import Foundation
import LaunchBench
import Testing

/// Every text export of `Fixtures/results/mixed`, byte for byte, against `Fixtures/golden/reports/`.
@Suite struct ReportGoldenTests {
    @Test(arguments: [ExportFile.summaryCSV, .imagesCSV, .summaryJSON])
    func exportFilesMatchGolden(file: ExportFile) throws {
        let dir = try ResultsFixture.copy("mixed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = try ResultsFolder.load(dir)
        try GoldenFile.check(try file.data(folder, summary: folder.summary), named: "reports/mixed/\(file.fileName)")
    }

    /// samples.csv is written row by row as the folder is read; the bytes are the same as from the whole list.
    @Test func samplesCSVMatchesGoldenAndTheInMemoryWriter() throws {
        let dir = try ResultsFixture.copy("mixed")
        defer { try? FileManager.default.removeItem(at: dir) }
        try ResultExports.writeAll(resultsFolder: dir)
        let streamed = try Data(contentsOf: dir.appendingPathComponent(ResultsFolder.FileName.samplesCSV))
        try GoldenFile.check(streamed, named: "reports/mixed/samples.csv")
        let samples = try ResultsFolder.loadSamples(dir).samples
        #expect(streamed == SamplesCSV.csv(samples).data(byteOrderMark: true))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "no partial file is left behind: \(leftovers)")
    }

    @Test(arguments: [ReportFormat.table, .markdown])
    func printedFormatsMatchGolden(format: ReportFormat) throws {
        let dir = try ResultsFixture.copy("mixed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = try ResultsFolder.load(dir)
        let name = format == .table ? "report.txt" : "report.md"
        try GoldenFile.check(try format.render(folder, summary: folder.summary), named: "reports/mixed/\(name)")
    }
}
