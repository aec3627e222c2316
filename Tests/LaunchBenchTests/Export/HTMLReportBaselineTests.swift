import Foundation
import TestSupport
import Testing

@testable import LaunchBench

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// report.html against a baseline: the section renders the gate's own report (verdicts, the initializer
/// functions, images and page-ins that changed), escapes every name, and is absent without a baseline.
@Suite struct HTMLReportBaselineTests {
    /// The fixture folder's page with `gate`, and whether it parses as XML.
    private func render(gate: GateReport?) throws -> (html: String, ok: Bool, checker: HTMLReportTests.Checker) {
        let dir = try ResultsFixture.copy("mixed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = try ResultsFolder.load(dir)
        let html = HTMLReport.render(folder, summary: folder.summary, gate: gate)
        let checker = HTMLReportTests.Checker()
        let parser = XMLParser(data: Data(html.utf8))
        parser.delegate = checker
        return (html, parser.parse(), checker)
    }

    /// Launches whose page-ins were `pageIns` each, with SampleNetworking's initializers as
    /// `InitializerFunctionChangeTests.samples` makes them.
    private static func samples(reachability: Double, extra: Double? = nil, pageIns: Double) -> [Sample] {
        InitializerFunctionChangeTests.samples(reachability: reachability, extra: extra).map { sample in
            var sample = sample
            sample.metrics[.pageIns] = pageIns + Double(sample.iteration % 3)
            return sample
        }
    }

    @Test func theSectionNamesTheFunctionsAndPageInsThatChanged() throws {
        let comparison = GateComparison(
            baseline: Self.samples(reachability: 2, pageIns: 2_600),
            current: Self.samples(reachability: 20.2, extra: 3, pageIns: 3_512))
        let entry = try #require(comparison.entries.first)
        #expect(entry.verdict == .regression)
        let (html, ok, checker) = try render(gate: GateReport(baselinePath: "Baselines/main", comparison: comparison))
        #expect(ok, "report.html must parse as XML: \(String(describing: checker.error))")
        #expect(html.contains("<h2>Against the baseline</h2>"))
        #expect(html.contains(HTMLText.escape(GateReport(comparison: comparison).headline)))
        #expect(html.contains("<code>networking_start_reachability</code> +18.2 ms in SampleNetworking"))
        #expect(html.contains("new initializer <code>networking_flush_queue</code> in SampleNetworking (3.0 ms)"))
        #expect(html.contains("page-ins +912 (+35 %) from exec to first frame"))
        #expect(html.contains("<td class=\"bad\">REGRESSION</td>"))
        // The smallest visible change, as the gate computed it.
        let smallest = try #require(entry.smallestVisiblePercent)
        #expect(html.contains("<td>±\(DecimalText.fixed(smallest, maxFractionDigits: 1)) %</td>"))
    }

    /// A Swift name's `<`, `>` and `&` (and a device's) are text, never markup.
    @Test func namesAreEscaped() throws {
        let name = "closure #1 () -> Swift.Array<(Kit.A & Kit.B)> in static Kit.Theme.<load>"
        var baseline = Self.samples(reachability: 2, pageIns: 100)
        var current = Self.samples(reachability: 20.2, pageIns: 100)
        for index in baseline.indices {
            baseline[index].initializers?[0].functions?[1].function = name
            current[index].initializers?[0].functions?[1].function = name
            current[index].deviceName = "Tom's <iPhone> & co"
        }
        for index in baseline.indices { baseline[index].deviceName = "Tom's <iPhone> & co" }
        let comparison = GateComparison(baseline: baseline, current: current)
        #expect(comparison.entries.first?.explanation?.functions.first?.function == name)
        let (html, ok, checker) = try render(gate: GateReport(comparison: comparison))
        #expect(ok, "report.html must parse as XML: \(String(describing: checker.error))")
        #expect(!html.contains("<load>") && !html.contains("Array<("))
        #expect(html.contains("<code>\(HTMLText.escape(name))</code> +18.2 ms"))
        #expect(checker.text.contains(name + " +18.2 ms"))
        #expect(checker.text.contains("Tom's <iPhone> & co"))
    }

    @Test func withoutABaselineThereIsNoSuchSection() throws {
        let (html, ok, _) = try render(gate: nil)
        #expect(ok)
        #expect(!html.contains("Against the baseline"))
        // A gate that compared with no baseline (the dylib guard only) adds none either.
        let guardOnly = try render(gate: GateReport(dylibViolations: []))
        #expect(!guardOnly.html.contains("Against the baseline"))
    }

    /// An A/B run explains NEW against BASE with the same words: the pairs' entries carry the explanation.
    @Test func anABRunNamesTheFunctionsThatChanged() throws {
        let paired = PairedComparison(
            new: GateLaunches(samples: Self.samples(reachability: 20.2, pageIns: 3_512)),
            base: GateLaunches(samples: Self.samples(reachability: 2, pageIns: 2_600)), manifest: nil,
            settings: GateSettings())
        let functions = paired.entries.first?.explanation?.functions.map(\.function)
        #expect(functions == ["networking_start_reachability"])
        let html = HTMLReport.pairedWhy(paired.entries)
        #expect(html.contains("What changed, NEW against BASE"))
        #expect(html.contains("<code>networking_start_reachability</code> +18.2 ms in SampleNetworking"))
        #expect(html.contains("page-ins +912 (+35 %)"))
    }
}
