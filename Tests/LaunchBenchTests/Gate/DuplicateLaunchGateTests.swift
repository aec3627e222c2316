import Foundation
import TestSupport
import Testing

@testable import LaunchBench

/// The gate counts each launch once: copies of one launch line cannot turn an unchanged build into a
/// regression. The folders are read and judged as `compare` does (`GateInput.load`, `GateCheck`).
@Suite struct DuplicateLaunchGateTests {
    @Test func thirtyCopiesOfTheSlowestLaunchDoNotMakeARegression() throws {
        let model = EmulatedTimingModel()
        // An unchanged build with one slow launch (a hiccup): rank-based, the gate passes it once.
        var current = GateSamples.cold(model.totals(count: 20, seed: 101))
        current[7].metrics[.totalPremainMs] = (current[7][.totalPremainMs] ?? 0) * 1.5
        let slowest = current[7]
        let a = try GateSamples.resultsFolder(GateSamples.cold(model.totals(count: 20, seed: 100)))
        let b = try GateSamples.resultsFolder(current + Array(repeating: slowest, count: 30))
        defer { for url in [a, b] { try? FileManager.default.removeItem(at: url) } }
        let gate = GateCheck(baseline: try GateInput.load(path: a.path, role: .baseline), settings: GateSettings())
        let report = try gate.report(current: try GateInput.load(path: b.path, role: .current))
        let table = GateTableReport.render(report)
        #expect(report.outcome == .passed, "\(table)")
        #expect(table.contains("Gate: PASSED — 1 unchanged"), "\(table)")
        #expect(
            table.contains("current \(b.path): samples.jsonl line 21 repeats line 8 (run run, device UDID-A"),
            "\(table)")
    }
}
