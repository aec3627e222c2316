import Foundation
import LaunchBench
import Testing

@testable import DeviceEmulator

/// What the emulated app prints, read back by the core's parser: the numbers dyld "printed" must come
/// back as the planned figures (within dyld's truncation), for every iOS generation.
@Suite struct EmulatorParserAgreementTests {
    static let env = ["DYLD_PRINT_STATISTICS": "1", "DYLD_PRINT_LIBRARIES": "1", "DYLD_INSERT_LIBRARIES": "/x"]

    @Test(arguments: ["10.3.4", "11.4.1", "12.5.7", "13.7", "14.8"])
    func summaryVersionsParseBackToThePlannedPhases(ios: String) throws {
        let version = try #require(OSVersion(ios))
        for n in 1...10 {
            let plan = LaunchPlanTests.planner(version).plan(
                app: LaunchPlanTests.app(), environment: Self.env, kind: n == 1 ? .cold : .warm, launchNumber: n)
            let records = LaunchLogParser.parse(plan.allOutput)
            let record = try #require(records.first)
            #expect(records.count == 1)
            let c = plan.counters
            #expect(abs((record.totalPremainMs ?? -1) - Double(c.preMainUs) / 1000) < 0.011)
            #expect(abs((record.dylibLoadingMs ?? -1) - Double(c.dylibLoadingUs) / 1000) < 0.011)
            #expect(abs((record.rebaseBindingMs ?? -1) - Double(c.rebaseBindingUs) / 1000) < 0.011)
            #expect(abs((record.objcSetupMs ?? -1) - Double(c.objcSetupUs) / 1000) < 0.011)
            #expect(abs((record.initializerMs ?? -1) - Double(c.initializerUs) / 1000) < 0.011)
            for marker in plan.markers {
                #expect(abs((record.markers[marker.name] ?? -1) - marker.ms) < 0.051)
            }
            #expect(record.done)
            let inside = record.loadedLibraries.compactMap(\.pathInsideAppBundle)
            #expect(
                inside == ["Sample", "Frameworks/SampleKit.framework/SampleKit", "Frameworks/libSampleAnalytics.dylib"])
            #expect(record.warnings.isEmpty, "\(record.warnings)")
        }
    }

    /// Launches over a second, where dyld prints one truncated decimal of seconds: every figure the parser
    /// gives must hold the emulated dyld's own counter, within the bounds it reports (or dyld's 0.01 ms where
    /// it reports none), in the summary, details-only and old (iOS 9) blocks alike.
    @Test(arguments: ["summary", "details", "old"])
    func timesOverASecondComeBackWithinTheirBounds(block: String) throws {
        var random = SeededRandom(seed: 43)
        var boundedValues = 0
        var widths: [Double] = []
        for _ in 0..<150 {
            let legacy = block == "old"
            let c = DyldCounters.make(
                dylibLoadingMs: 300 + random.unit() * 3000, rebaseBindingMs: 20 + random.unit() * 900,
                objcSetupMs: 20 + random.unit() * 300, initializerMs: 50 + random.unit() * 1200,
                initializers: [("libSystem.B.dylib", 3)], bundleImageCount: 3, legacy: legacy, random: &random)
            let environment = [block == "details" ? "DYLD_PRINT_STATISTICS_DETAILS" : "DYLD_PRINT_STATISTICS": "1"]
            let lines = DyldOutput(osVersion: legacy ? OSVersion(9, 3, 5) : OSVersion(12, 5), environment: environment)
                .statisticsLines(c)
            let record = try #require(LaunchLogParser.parse(Array((lines.joined(separator: "\n") + "\n").utf8)).first)
            let truth: [(Metric, UInt64)] =
                legacy
                ? [
                    (.totalPremainMs, c.totalUs), (.dylibLoadingMs, c.loadLibrariesUs),
                    (.rebaseBindingMs, c.rebaseUs + c.bindUs + c.weakBindUs), (.initializerMs, c.initTotalUs),
                ]
                : [
                    (.totalPremainMs, c.preMainUs), (.dylibLoadingMs, c.dylibLoadingUs),
                    (.rebaseBindingMs, c.rebaseBindingUs), (.objcSetupMs, c.objcSetupUs),
                    (.initializerMs, c.initializerUs),
                ]
            for (metric, us) in truth {
                let real = Double(us) / 1000
                let value = try #require(record.metrics[metric], "\(metric) in \(lines)")
                if let bounds = record.bounds.first(where: { $0.metric == metric }) {
                    boundedValues += 1
                    #expect(
                        bounds.lowMs - 0.011 <= real && real <= bounds.highMs + 0.011, "\(metric) \(real) \(bounds)")
                    #expect(bounds.lowMs <= value && value <= bounds.highMs, "\(metric) \(value) \(bounds)")
                    // Never wider than the 0.1 s dyld printed; the percentages usually make it far narrower.
                    #expect(bounds.highMs - bounds.lowMs <= 100.01, "\(bounds)")
                    widths.append(bounds.highMs - bounds.lowMs)
                } else {
                    // Printed in ms, or the sum of parts printed in ms (four or more truncations and the DOF time).
                    #expect(abs(value - real) <= 0.1, "\(metric): \(value) for \(real) in \(lines)")
                }
            }
            if Double(c.preMainUs) >= 1_000_000,
                [c.dylibLoadingUs, c.rebaseBindingUs, c.objcSetupUs].allSatisfy({
                    $0 < 1_000_000
                }), c.initializerUs < 1_000_000, block == "summary"
            {
                // The case: a total of 1.3 s whose parts sum to 1367.28 ms is 1367.28, not 1300.
                #expect(abs((record.totalPremainMs ?? 0) - Double(c.preMainUs) / 1000) <= 0.06)
            }
        }
        #expect(boundedValues > 100)
        #expect(widths.reduce(0, +) / Double(max(1, widths.count)) < 50, "mean width \(widths)")
    }

    @Test func iOS9OldBlockParsesWithoutObjC() throws {
        let plan = LaunchPlanTests.planner(OSVersion(9, 3, 5), model: "iPhone5,2").plan(
            app: LaunchPlanTests.app(), environment: Self.env, kind: .cold, launchNumber: 1)
        let record = try #require(LaunchLogParser.parse(plan.allOutput).first)
        let c = plan.counters
        #expect(abs((record.totalPremainMs ?? -1) - Double(c.totalUs) / 1000) < 0.011)
        #expect(record.objcSetupMs == nil)
        #expect(abs((record.initializerMs ?? -1) - Double(c.initTotalUs) / 1000) < 0.011)
    }

    @Test func iOS16HasMarkersOnly() throws {
        let plan = LaunchPlanTests.planner(OSVersion(16, 7), model: "iPhone14,5").plan(
            app: LaunchPlanTests.app(), environment: Self.env, kind: .cold, launchNumber: 1)
        let record = try #require(LaunchLogParser.parse(plan.allOutput).first)
        #expect(record.totalPremainMs == nil)
        #expect(record.markers.keys.sorted() == ["didFinishLaunching", "firstFrame", "main"])
        #expect(record.loadedLibraries.count == 3 + LaunchPlanner.defaultSystemImages.count)
    }

    @Test func theWrapArtefactIsReadAsNotMeasured() throws {
        let profile = AppProfile(faults: Faults(dyldWrap: LaunchSelector(probability: 1)))
        let plan = LaunchPlanTests.planner(OSVersion(12, 5)).plan(
            app: LaunchPlanTests.app(profile), environment: ["DYLD_PRINT_STATISTICS": "1"], kind: .cold, launchNumber: 1
        )
        let record = try #require(LaunchLogParser.parse(plan.allOutput).first)
        #expect(record.rebaseBindingMs == nil)
        #expect(!record.warnings.isEmpty)
        #expect(record.totalPremainMs != nil)
    }
}
