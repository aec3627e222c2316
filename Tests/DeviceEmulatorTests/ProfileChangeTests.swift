import Foundation
import LaunchBench
import Testing

@testable import DeviceEmulator

/// `changes` in `launchbench-emulator.json`: a bundle dylib or slow initializer from a launch or build on.
@Suite struct ProfileChangeTests {
    static let change = ProfileChange(
        fromLaunch: 3, addBundleImages: ["Frameworks/Analytics.framework/Analytics"], dylibLoadingMs: 70,
        initializers: [InitializerFigure(image: "Analytics", ms: 40)])
    static let env = ["DYLD_PRINT_STATISTICS": "1", "DYLD_PRINT_LIBRARIES": "1"]

    static func record(_ plan: LaunchPlan) -> LaunchRecord {
        LaunchLogParser.parse(plan.allOutput).first ?? LaunchRecord()
    }

    @Test func fromALaunchOnTheAppLoadsTheDylibAndDyldListsItsInitializer() throws {
        let app = LaunchPlanTests.app(AppProfile(noise: 0, changes: [Self.change]))
        let before = Self.record(
            LaunchPlanTests.planner().plan(app: app, environment: Self.env, kind: .cold, launchNumber: 2))
        let after = Self.record(
            LaunchPlanTests.planner().plan(app: app, environment: Self.env, kind: .cold, launchNumber: 3))
        let dylib = "Frameworks/Analytics.framework/Analytics"
        #expect(!before.loadedLibraries.compactMap(\.pathInsideAppBundle).contains(dylib))
        #expect(after.loadedLibraries.compactMap(\.pathInsideAppBundle).contains(dylib))
        #expect(before.slowestInitializers.allSatisfy { $0.image != "Analytics" })
        #expect(after.slowestInitializers.contains { $0.image == "Analytics" && abs(($0.ms ?? 0) - 40) < 0.05 })
        // Noise 0: each phase grows by exactly what the change adds (dyld rounds to 0.01 ms).
        let dylibDelta = try #require(after.dylibLoadingMs) - (try #require(before.dylibLoadingMs))
        let initDelta = try #require(after.initializerMs) - (try #require(before.initializerMs))
        #expect(abs(dylibDelta - 70) < 0.05)
        #expect(abs(initDelta - 40) < 0.05)
        // The after-main gaps stay: main moves by the added pre-main.
        let mainDelta = try #require(after.markers["main"]) - (try #require(before.markers["main"]))
        #expect(abs(mainDelta - 110) < 0.5)
    }

    @Test func fromABuildOnComparesBuildNumbersNumerically() throws {
        let change = ProfileChange(fromBuild: "35", dylibLoadingMs: 70)
        #expect(!change.applies(launchNumber: 1, build: "34"))
        #expect(change.applies(launchNumber: 1, build: "35"))
        #expect(change.applies(launchNumber: 1, build: "100"))
        #expect(change.applies(launchNumber: 1, build: "35.0.1"))
        #expect(!change.applies(launchNumber: 1, build: "9"))
        #expect(!change.applies(launchNumber: 1, build: nil))
        let both = ProfileChange(fromLaunch: 5, fromBuild: "35")
        #expect(!both.applies(launchNumber: 4, build: "36") && both.applies(launchNumber: 5, build: "36"))
    }

    @Test func nonsenseIsRejectedWithTheFieldNamed() {
        for (json, words) in [
            (#"{"changes": [{"dylibLoadingMs": 5}]}"#, "changes[0] needs fromLaunch or fromBuild"),
            (#"{"changes": [{"fromLaunch": 0}]}"#, "changes[0].fromLaunch is 0"),
            (
                #"{"changes": [{"fromBuild": "2", "initializers": [{"image": "X", "ms": -1}]}]}"#,
                "changes[0].initializers.X is -1.0"
            ),
        ] {
            #expect(throws: AppProfileError.self) { try AppProfile.decode(Data(json.utf8)) }
            do { _ = try AppProfile.decode(Data(json.utf8)) } catch {
                #expect("\(error.localizedDescription)".contains(words))
            }
        }
    }

    @Test func theSampleAppFixtureAddsAnalyticsFromBuild35() throws {
        let url = FixturePaths.sampleApp.appendingPathComponent(AppProfile.fileName)
        let profile = try AppProfile.decode(Data(contentsOf: url))
        #expect(profile.activeChanges(launchNumber: 1, build: "34").isEmpty)
        #expect(
            profile.activeChanges(launchNumber: 1, build: "35").first?.addBundleImages == [
                "Frameworks/Analytics.framework/Analytics"
            ])
    }
}
