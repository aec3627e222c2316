import Foundation
import LaunchBench
import TestSupport
import Testing

/// `launchbench report` in-process on a copy of a results fixture, its report written to a file. The report on
/// stdout (CSV without a byte-order mark) is the `report-csv-print-only` case in `Fixtures/cli`.
@Suite struct ReportCommandTests {
    /// A private copy of `Fixtures/results/<name>`; the caller removes it.
    static func copy(_ name: String) throws -> URL {
        let destination = FileManager.default.temporaryDirectory
            .appendingPathComponent("launchbench-\(name)-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: PackageRoot.at("Fixtures/results/\(name)"), to: destination)
        return destination
    }

    @Test func regeneratesTheExportsAndWritesTheTable() async throws {
        let dir = try Self.copy("mixed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("table.txt")
        let ending = await InProcessCommand.run(["report", dir.path, "--output", output.path])
        #expect(ending.status == 0, "\(ending.message ?? "")")
        let table = try String(contentsOf: output, encoding: .utf8)
        #expect(table.contains("Ana's iPhone — iPhone 11 (iPhone12,1) · iOS 14.8"))
        #expect(table.contains("cold  total_premain_ms          6     1  352.6  359.5   365.8"))
        for name in ["samples.csv", "summary.csv", "images.csv", "summary.json", "report.html"] {
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path), "\(name)")
        }
    }

    @Test func writesTheChosenFormatToAFile() async throws {
        let dir = try Self.copy("mixed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let markdown = dir.appendingPathComponent("summary.md")
        let ending = await InProcessCommand.run(["report", dir.path, "--format", "markdown", "--output", markdown.path])
        #expect(ending.status == 0, "\(ending.message ?? "")")
        #expect(try String(contentsOf: markdown, encoding: .utf8).hasPrefix("### Launch times of com.example.sample"))
        let json = dir.appendingPathComponent("out.json")
        let printOnly = await InProcessCommand.run([
            "report", dir.path, "--format", "json", "--print-only", "--output", json.path,
        ])
        #expect(printOnly.status == 0, "\(printOnly.message ?? "")")
        let document = try JSONCoding.decoder().decode(SummaryDocument.self, from: try Data(contentsOf: json))
        #expect(document.devices.count == 2)
    }

    @Test func aMissingFolderFailsWithAnActionableMessage() async throws {
        let missing = await InProcessCommand.run(["report", "/nonexistent/results-\(UUID().uuidString)"])
        #expect(missing.status == 1)
        #expect(missing.message?.contains("Results folder") == true, "\(missing.message ?? "")")
        #expect(missing.message?.contains("not found") == true, "\(missing.message ?? "")")
        #expect(await InProcessCommand.run(["report", "/tmp", "--format", "yaml"]).status == 64)
    }
}
