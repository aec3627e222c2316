import Foundation
import LaunchBench
import TestSupport
import Testing

/// `launchbench report DIR --baseline B`: report.html gets the section "Against the baseline", written into DIR
/// or printed; `report DIR` alone writes it without.
@Suite struct ReportBaselineCommandTests {
    @Test func theBaselineSectionIsWrittenOnlyWhenABaselineIsGiven() async throws {
        let dir = try ReportCommandTests.copy("mixed")
        let baseline = try ReportCommandTests.copy("mixed")
        defer {
            try? FileManager.default.removeItem(at: dir)
            try? FileManager.default.removeItem(at: baseline)
        }
        let report = dir.appendingPathComponent("report.html")
        let against = await InProcessCommand.run(["report", dir.path, "--baseline", baseline.path])
        #expect(against.status == 0, "\(against.message ?? "")")
        let html = try String(contentsOf: report, encoding: .utf8)
        #expect(html.contains("<h2>Against the baseline</h2>"))
        #expect(html.contains("Gate: UNDECIDED — 1 not judged (insufficient data), 3 unchanged"))
        #expect(html.contains("<td>unchanged</td>"))

        let printed = dir.appendingPathComponent("printed.html")
        let printOnly = await InProcessCommand.run([
            "report", dir.path, "--print-only", "--format", "html", "--baseline", baseline.path, "--output",
            printed.path,
        ])
        #expect(printOnly.status == 0, "\(printOnly.message ?? "")")
        #expect(try String(contentsOf: printed, encoding: .utf8).contains("<h2>Against the baseline</h2>"))

        let alone = await InProcessCommand.run(["report", dir.path])
        #expect(alone.status == 0, "\(alone.message ?? "")")
        #expect(!(try String(contentsOf: report, encoding: .utf8)).contains("Against the baseline"))
    }

    @Test func aMissingBaselineFails() async throws {
        let dir = try ReportCommandTests.copy("mixed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let ending = await InProcessCommand.run([
            "report", dir.path, "--baseline", "/nonexistent/baseline-\(UUID().uuidString)",
        ])
        #expect(ending.status != 0)
        #expect(ending.message?.contains("nonexistent") == true, "\(ending.message ?? "")")
    }
}
