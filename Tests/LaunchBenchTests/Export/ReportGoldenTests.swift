import Foundation
import LaunchBench
import Testing

/// Every text export of `Fixtures/results/mixed`, byte for byte, against `Fixtures/golden/reports/`.
@Suite struct ReportGoldenTests {
    @Test(arguments: [ExportFile.samplesCSV, .summaryCSV, .imagesCSV, .summaryJSON])
    func exportFilesMatchGolden(file: ExportFile) throws {
        let dir = try ResultsFixture.copy("mixed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = try ResultsFolder.load(dir)
        try GoldenFile.check(try file.data(folder, summary: folder.summary), named: "reports/mixed/\(file.fileName)")
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
