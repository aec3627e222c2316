import Foundation
import TestSupport
import Testing

@testable import LaunchBench

/// `launchbench compare` counts each launch once: copies of one launch line cannot turn an unchanged build
/// into a regression.
@Suite(.tags(.subprocess), .timeLimit(.minutes(5))) struct DuplicateLaunchGateTests {
    @Test func thirtyCopiesOfTheSlowestLaunchDoNotMakeARegression() async throws {
        let model = CompareCommandTests.model
        // An unchanged build with one slow launch (a hiccup): rank-based, the gate passes it once.
        var current = GateSamples.cold(model.totals(count: 20, seed: 101))
        current[7].metrics[.totalPremainMs] = (current[7][.totalPremainMs] ?? 0) * 1.5
        let slowest = current[7]
        let a = try CompareCommandTests.folder(GateSamples.cold(model.totals(count: 20, seed: 100)))
        let b = try CompareCommandTests.folder(current + Array(repeating: slowest, count: 30))
        defer { for url in [a, b] { try? FileManager.default.removeItem(at: url) } }
        let result = try await CompareCommandTests.run([a.path, b.path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("Gate: PASSED — 1 unchanged"), "\(result.stdout)")
        #expect(
            result.stdout.contains("current \(b.path): samples.jsonl line 21 repeats line 8 (run run, device UDID-A"),
            "\(result.stdout)")
    }
}
