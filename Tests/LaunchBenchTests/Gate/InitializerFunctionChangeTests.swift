import Foundation
import TestSupport
import Testing

@testable import LaunchBench

/// `compare` names the initializer functions behind a change, and `initializers.csv` lists them.
@Suite struct InitializerFunctionChangeTests {
    /// Launches whose SampleNetworking initializers took `warm` and `reachability` ms (plus `extra`, a
    /// function only some builds have).
    static func samples(reachability: Double, extra: Double? = nil, count: Int = 9) -> [Sample] {
        (1...count).map { iteration in
            var sample = GateSamples.make(
                iteration: iteration, metrics: [.totalPremainMs: 100 + reachability, .initializerMs: 10 + reachability])
            let jitter = Double(iteration % 3) * 0.1
            var functions = [
                InitializerFunctionTime(function: "networking_warm_cache", ms: 5 + jitter),
                InitializerFunctionTime(function: "networking_start_reachability", ms: reachability + jitter),
            ]
            if let extra { functions.append(InitializerFunctionTime(function: "networking_flush_queue", ms: extra)) }
            let total = functions.reduce(0) { $0 + $1.ms }
            sample.initializers = [InitializerTime(image: "SampleNetworking", ms: total, functions: functions)]
            return sample
        }
    }

    @Test func statisticsPerFunction() throws {
        let statistics = ImageStatistics(samples: Self.samples(reachability: 2))
        #expect(statistics.functions.map(\.function) == ["networking_warm_cache", "networking_start_reachability"])
        let warm = try #require(statistics.functions.first)
        #expect(warm.launches == 9)
        #expect(warm.medianMs == 5.1)
        #expect(warm.p90Ms == 5.2)
    }

    @Test func aSlowerFunctionAndANewOneAreNamed() {
        let explanation = GateExplanation(
            baseline: Self.samples(reachability: 2), current: Self.samples(reachability: 20.2, extra: 3))
        #expect(
            explanation.functions.map(\.text) == [
                "new initializer networking_flush_queue in SampleNetworking (3.0 ms)",
                "networking_start_reachability +18.2 ms",
            ])
        let sentence = explanation.sentence(totalShiftMs: 21.2) ?? ""
        #expect(sentence.contains("networking_start_reachability +18.2 ms"))
        let lines = GateText.explanationLines(explanation)
        #expect(lines.contains("networking_start_reachability +18.2 ms in SampleNetworking (median 2.1 → 20.3 ms)"))
    }

    @Test func theJSONReportListsTheFunctions() throws {
        let comparison = GateComparison(
            baseline: Self.samples(reachability: 2), current: Self.samples(reachability: 20.2, extra: 3))
        let text = GateJSONReport.render(GateReport(comparison: comparison), exitCode: 2)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let entry = try #require((json["comparisons"] as? [[String: Any]])?.first)
        let explanation = try #require(entry["explanation"] as? [String: Any])
        let functions = try #require(explanation["initializer_functions"] as? [[String: Any]])
        #expect(
            functions.map { $0["function"] as? String } == ["networking_flush_queue", "networking_start_reachability"])
        #expect(functions.map { $0["change"] as? String } == ["appeared", "changed"])
    }

    /// A samples.jsonl line whose function time is impossible is refused like an image's.
    @Test func anImpossibleFunctionTimeIsRefused() throws {
        var sample = Self.samples(reachability: 2, count: 1)[0]
        sample.initializers?[0].functions?[0].ms = -1
        let data = try JSONCoding.encoder().encode(sample)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Sample.self, from: data) }
    }

    /// Noise below a millisecond and 10 % names nothing; nor does a side without function names.
    @Test func smallMovesAndUnnamedSidesNameNothing() {
        let same = GateExplanation(baseline: Self.samples(reachability: 2), current: Self.samples(reachability: 2.5))
        #expect(same.functions.isEmpty)
        var unnamed = Self.samples(reachability: 2)
        for index in unnamed.indices { unnamed[index].initializers?[0].functions = nil }
        let before = GateExplanation(baseline: unnamed, current: Self.samples(reachability: 20))
        #expect(before.functions.isEmpty)
    }

    @Test func initializersCSVHasARowPerFunction() throws {
        let folder = try GateSamples.resultsFolder(Self.samples(reachability: 2))
        defer { try? FileManager.default.removeItem(at: folder) }
        let outcome = try ResultExports.writeAll(resultsFolder: folder)
        let text = try String(
            contentsOf: folder.appendingPathComponent(ResultsFolder.FileName.initializersCSV), encoding: .utf8)
        #expect(outcome.written.map(\.lastPathComponent).contains("initializers.csv"))
        let html = try String(contentsOf: folder.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("Slowest initializer functions"))
        #expect(html.contains("<code>networking_start_reachability</code>"))
        let table = String(
            decoding: try ReportFormat.table.render(outcome.folder, summary: outcome.summary), as: UTF8.self)
        #expect(
            table.contains(
                "Slowest initializer functions (median): networking_warm_cache in SampleNetworking 5.1 ms, "
                    + "networking_start_reachability in SampleNetworking 2.1 ms."))
        #expect(
            text.split(whereSeparator: \.isNewline).map(String.init) == [
                "device_udid,launch_kind,image,function,launches,median_ms,p90_ms",
                "UDID-A,cold,SampleNetworking,networking_warm_cache,9,5.1,5.2",
                "UDID-A,cold,SampleNetworking,networking_start_reachability,9,2.1,2.2",
            ])
    }
}
