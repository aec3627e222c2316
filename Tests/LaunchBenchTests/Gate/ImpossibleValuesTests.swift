import Foundation
import Testing

@testable import LaunchBench

/// A samples.jsonl line whose figures cannot be real is skipped with a note by every reader, so the gate never
/// prints a median of `5e+307` or `-50` (and never passes because of one).
@Suite struct ImpossibleValuesTests {
    static func line(_ value: String, iteration: Int) -> String {
        "{\"app_bundle_id\":\"com.example.app\",\"app_version\":\"1.0\",\"device_name\":\"P\",\"device_udid\":\"UDID-A\","
            + "\"iteration\":\(iteration),\"launch_kind\":\"cold\",\"os_version\":\"14.8\",\"product_type\":\"iPhone12,1\","
            + "\"run_id\":\"r\",\"started_at\":\"2026-01-02T00:00:00Z\",\"status\":\"ok\",\"total_premain_ms\":\(value)}\n"
    }

    @Test(arguments: ["1e308", "-50", "-0.001"])
    func theGateSkipsImpossibleBaselineValuesNamingTheFolderAndLine(value: String) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("impossible-\(UUID().uuidString)")
        let trailing = (21...40).map { Self.line(value, iteration: $0) }.joined()
        let baseline = try TrendTests.folder(
            root, "base", median: 200, day: 1, udid: "UDID-A", seed: 1, trailing: trailing)
        let current = try TrendTests.folder(root, "head", median: 200, day: 2, udid: "UDID-A", seed: 2)
        let report = try GateCheck(
            baseline: try GateInput.load(path: baseline, role: .baseline), settings: GateSettings()
        )
        .report(current: try GateInput.load(path: current, role: .current))
        let entry = try #require(report.comparison?.entries.first)
        #expect(entry.baseline.values.count == 20)
        #expect((entry.baseline.median ?? 0) > 150 && (entry.baseline.median ?? 0) < 250)
        #expect(
            report.notes.contains { $0.hasPrefix("baseline \(baseline): samples.jsonl line 21 is not a launch sample") }
        )
        #expect(
            report.notes.filter { $0.hasPrefix("baseline \(baseline)") && $0.contains("not a launch sample") }.count
                == 20)
    }

    /// The limit is the run's own `--timeout` (plus a minute) when run.json records it.
    @Test func theRunsTimeoutBoundsWhatIsPossible() {
        var manifest = RunManifest()
        manifest.options = RunManifest.Options(timeoutSeconds: 30)
        #expect(ResultsFolder.valueLimitMs(manifest) == 90_000)
        let (samples, notes) = ResultsFolder.parseSamples(
            Data((Self.line("95000", iteration: 1) + Self.line("85000", iteration: 2)).utf8), valueLimitMs: 90_000)
        #expect(samples.map(\.iteration) == [2])
        #expect(notes.first?.contains("95000.0 ms is beyond what the run's timeout allows (90 s)") == true)
        #expect(ResultsFolder.valueLimitMs(nil) == Sample.defaultValueLimitMs)
    }

    /// Without run.json the bound is the one a run with the longest `--timeout` would have: a launch of two hours
    /// is no more possible in a folder that lost its run.json.
    @Test func withoutRunJSONTheCeilingBoundsWhatIsPossible() {
        #expect(Sample.defaultValueLimitMs == 3_660_000)
        let (samples, notes) = ResultsFolder.parseSamples(
            Data((Self.line("7200000", iteration: 1) + Self.line("85000", iteration: 2)).utf8))
        #expect(samples.map(\.iteration) == [2])
        #expect(notes.first?.contains("7200000.0 ms is beyond what the run's timeout allows (3660 s)") == true)
    }

    /// A run.json timeout past `run`'s ceiling (hand-edited: `run` refuses it) widens nothing: the bound is the
    /// ceiling's, so `timeoutSeconds: 1e300` does not let a 1e200 ms launch through to a pass.
    @Test func aRecordedTimeoutCountsUpToTheCeilingOnly() {
        var manifest = RunManifest()
        manifest.options = RunManifest.Options(timeoutSeconds: 1e300)
        #expect(ResultsFolder.valueLimitMs(manifest) == (OptionCeilings.timeoutSeconds + 60) * 1000)
        let (samples, notes) = ResultsFolder.parseSamples(
            Data((Self.line("1e200", iteration: 1) + Self.line("85000", iteration: 2)).utf8),
            valueLimitMs: ResultsFolder.valueLimitMs(manifest))
        #expect(samples.map(\.iteration) == [2])
        #expect(notes.first?.contains("is beyond what the run's timeout allows (3660 s)") == true)
    }
}
