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
