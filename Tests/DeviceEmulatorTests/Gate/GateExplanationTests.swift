import Foundation
import LaunchBench
import Testing

@testable import DeviceEmulator

/// `compare`'s explanation on two emulated runs of the sample app: build 34, then build 35, whose
/// profile (`Fixtures/SampleApp`) adds `Frameworks/Analytics.framework` with a 40 ms initializer.
@Suite struct GateExplanationTests {
    static func samples(build: String, seed: UInt64, count: Int = 20) throws -> [Sample] {
        var profile = try EmulatedLaunches.sampleAppProfile()
        profile.seed = seed
        return EmulatedLaunches.samples(
            EmulatedLaunches.app(profile, build: build), count: count, runID: "build-\(build)", libraries: true)
    }

    static func report() throws -> GateReport {
        let comparison = GateComparison(
            baseline: try samples(build: "34", seed: 11), current: try samples(build: "35", seed: 12))
        return GateReport(baselinePath: "base", currentPath: "current", comparison: comparison)
    }

    @Test func theRegressionIsExplainedByDylibLoadingAndTheNewFramework() throws {
        let entry = try #require(try Self.report().comparison?.entries.first)
        #expect(entry.verdict == .regression)
        let explanation = try #require(entry.explanation)
        // The profile adds 70 ms of dylib loading and a 40 ms initializer (default figures: 74 and 21 ms).
        let dylib = try #require(explanation.phases.first { $0.phase == "dylib loading" })
        #expect((60...80).contains(dylib.shift.shift), "\(dylib.shift.shift)")
        #expect(try #require(dylib.shift.low) > 50 && (try #require(dylib.shift.high)) < 90)
        let initializers = try #require(explanation.phases.first { $0.phase == "initializers" })
        #expect((33...47).contains(initializers.shift.shift), "\(initializers.shift.shift)")
        let rebase = try #require(explanation.phases.first { $0.phase == "rebase/binding" })
        #expect(try #require(rebase.shift.low) < 0 && (try #require(rebase.shift.high)) > 0)  // noise only

        let first = try #require(explanation.images.first)
        #expect(
            first.image == "Frameworks/Analytics.framework/Analytics" && first.change == .appeared && first.inBundle)
        #expect(abs(try #require(first.currentMedianMs) - 40) < 5)
        #expect(!explanation.images.contains { $0.change == .disappeared })

        let sentence = try #require(entry.explanationSentence)
        #expect(sentence.contains(", of which dylib loading +"))
        #expect(sentence.contains(": new bundle dylib Analytics.framework (initializer "))
        #expect(sentence.hasPrefix("+1"))  // about +110 ms in all
    }

    @Test func everyGateFormatCarriesTheExplanation() throws {
        let report = try Self.report()
        let table = GateTableReport.render(report)
        #expect(table.contains("Why Emulated iPhone 11 · cold · total_premain_ms moved: +"))
        #expect(table.contains("  dylib loading: +"))
        #expect(table.contains("new bundle dylib Analytics.framework"))
        let markdown = GateMarkdownReport.render(report)
        #expect(markdown.contains(" Why: +"))
        #expect(markdown.contains("new bundle dylib Analytics.framework"))
        let junit = GateJUnitReport.render(report)
        #expect(junit.contains("<failure message=\"Slower by"))
        #expect(junit.contains("of which dylib loading +"))
        #expect(junit.contains("new bundle dylib Analytics.framework"))
        let text = GateJSONReport.render(report, exitCode: 2)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let comparison = try #require((json["comparisons"] as? [[String: Any]])?.first)
        let explanation = try #require(comparison["explanation"] as? [String: Any])
        #expect((explanation["summary"] as? String)?.contains("Analytics.framework") == true)
        let images = try #require(explanation["images"] as? [[String: Any]])
        #expect(images.first?["change"] as? String == "appeared")
        #expect(images.first?["baseline_median_initializer_ms"] is NSNull)
        let phases = try #require(explanation["phases"] as? [[String: Any]])
        #expect(phases.map { $0["phase"] as? String }.contains("dylib loading"))
    }

    @Test func anUnchangedBuildNamesNoImage() throws {
        let comparison = GateComparison(
            baseline: try Self.samples(build: "34", seed: 21), current: try Self.samples(build: "34", seed: 22))
        let entry = try #require(comparison.entries.first)
        #expect(entry.verdict != .regression)
        #expect(entry.explanation?.images.filter { $0.change != .changed }.isEmpty == true)
        #expect(!GateTableReport.render(GateReport(comparison: comparison)).contains("Why "))
    }
}
