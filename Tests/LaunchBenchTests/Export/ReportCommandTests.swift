import Foundation
import LaunchBench
import TestSupport
import Testing

/// `launchbench report` end to end: the built binary (`BuiltProducts`) on a fixture copy.
@Suite(.tags(.subprocess), .timeLimit(.minutes(5))) struct ReportCommandTests {
    static func run(_ arguments: [String]) async throws -> LaunchbenchCLI.Outcome {
        try await LaunchbenchCLI.run(arguments, environment: ["NO_COLOR": "1"])
    }

    @Test func regeneratesTheExportsAndPrintsTheTable() async throws {
        let dir = try ResultsFixture.copy("mixed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await Self.run(["report", dir.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let table = result.stdout
        #expect(table.contains("Ana's iPhone — iPhone 11 (iPhone12,1) · iOS 14.8"))
        #expect(table.contains("cold  total_premain_ms          6     1  352.6  359.5   365.8"))
        #expect(result.stderr.contains("wrote samples.csv, summary.csv, images.csv, summary.json, report.html"))
        for name in ["samples.csv", "summary.csv", "images.csv", "summary.json", "report.html"] {
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path))
        }
    }

    @Test func printOnlyLeavesTheFolderAloneAndCSVOnStdoutHasNoBOM() async throws {
        let dir = try ResultsFixture.copy("mixed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await Self.run(["report", dir.path, "--format", "csv", "--print-only"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("summary.csv").path))
        #expect(result.stdoutData.first == UInt8(ascii: "d"), "no BOM on stdout")
        let rows = CSVWriterTests.parse(result.stdout)
        #expect(rows.count == 37)
        #expect(result.stderr.contains("note: samples.jsonl line 32 is cut off"))
    }

    @Test func writesTheChosenFormatToAFile() async throws {
        let dir = try ResultsFixture.copy("mixed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("summary.md")
        let result = try await Self.run(["report", dir.path, "--format", "markdown", "--output", output.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        let markdown = try String(contentsOf: output, encoding: .utf8)
        #expect(markdown.hasPrefix("### Launch times of com.example.sample"))
        let json = try await Self.run(["report", dir.path, "--format", "json", "--print-only"])
        let document = try JSONCoding.decoder().decode(SummaryDocument.self, from: json.stdoutData)
        #expect(document.devices.count == 2)
    }

    @Test func aMissingFolderFailsWithAnActionableMessage() async throws {
        let result = try await Self.run(["report", "/nonexistent/results-\(UUID().uuidString)"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("Results folder"))
        #expect(result.stderr.contains("not found"))
        let bad = try await Self.run(["report", "/tmp", "--format", "yaml"])
        #expect(bad.status == 64)
    }
}
