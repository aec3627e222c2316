import Foundation
import LaunchBench
import Testing

@testable import DeviceEmulator

@Suite struct LaunchPlanTests {
    static func app(_ profile: AppProfile = .default) -> InstalledApp {
        InstalledApp(
            bundleID: "com.example.launchbench.sample", executable: "Sample", bundleFolderName: "Sample.app",
            displayName: "Sample", name: "Sample", version: "34", shortVersion: "1.2",
            frameworks: ["SampleKit.framework", "libSampleAnalytics.dylib", "Info.plist"], profile: profile,
            staticDiskUsage: 4096, bundleUUID: UUID(), containerUUID: UUID())
    }

    static func planner(_ version: OSVersion = OSVersion(12, 5), model: String = "iPhone6,1") -> LaunchPlanner {
        LaunchPlanner(productType: model, osVersion: version, udid: "00008030-001A2D4E0C388001", labSeed: 1)
    }

    static func text(_ plan: LaunchPlan) -> String { String(decoding: plan.allOutput, as: UTF8.self) }

    @Test func aColdIOS12LaunchPrintsStatisticsThenMarkersThenExits() {
        let plan = Self.planner().plan(
            app: Self.app(), environment: ["DYLD_PRINT_STATISTICS": "1"], kind: .cold, launchNumber: 1)
        let text = Self.text(plan)
        #expect(text.hasPrefix("Total pre-main time: "))
        #expect(text.contains("           slowest intializers :\n"))
        let markers = text.split(separator: "\n").filter { $0.hasPrefix("[launchbench] mark=") }
        #expect(
            markers.map { $0.split(separator: " ")[1] } == ["mark=main", "mark=didFinishLaunching", "mark=firstFrame"])
        #expect(text.hasSuffix("[launchbench] done\n"))
        #expect(plan.ending == .exit(status: 0))
        #expect(plan.endsAtMs > plan.markers.last!.ms)
        // Markers come after the pre-main, in order, and the pre-main is near the nominal 230 ms.
        let preMain = Double(plan.counters.preMainUs) / 1000
        #expect(plan.markers.map(\.ms) == plan.markers.map(\.ms).sorted())
        #expect(plan.markers[0].ms > preMain)
        #expect((150...320).contains(preMain))
        #expect(plan.outputs.map(\.atMs) == plan.outputs.map(\.atMs).sorted())
    }

    @Test func theSameSeedGivesTheSameLaunchAndAnotherSeedAnother() {
        let env = ["DYLD_PRINT_STATISTICS": "1"]
        let a = Self.planner().plan(app: Self.app(), environment: env, kind: .cold, launchNumber: 3)
        let b = Self.planner().plan(app: Self.app(), environment: env, kind: .cold, launchNumber: 3)
        let c = Self.planner().plan(app: Self.app(AppProfile(seed: 99)), environment: env, kind: .cold, launchNumber: 3)
        #expect(Self.text(a) == Self.text(b))
        #expect(Self.text(a) != Self.text(c))
        let quiet = Self.planner().plan(
            app: Self.app(AppProfile(noise: 0)), environment: env, kind: .cold, launchNumber: 3)
        #expect(abs(Double(quiet.counters.preMainUs) / 1000 - 230) < 0.1)
    }

    @Test func warmLaunchesAreFaster() {
        var cold = 0.0
        var warm = 0.0
        for n in 1...20 {
            cold += Double(
                Self.planner().plan(app: Self.app(), environment: [:], kind: .cold, launchNumber: n).counters.preMainUs)
            warm += Double(
                Self.planner().plan(app: Self.app(), environment: [:], kind: .warm, launchNumber: n).counters.preMainUs)
        }
        #expect((0.35...0.65).contains(warm / cold))
    }

    @Test func iOS15PrintsOnlyMarkersAndDyld4LibraryLines() {
        let plan = Self.planner(OSVersion(15, 8)).plan(
            app: Self.app(), environment: ["DYLD_PRINT_STATISTICS": "1", "DYLD_PRINT_LIBRARIES": "1"], kind: .cold,
            launchNumber: 1)
        let lines = Self.text(plan).split(separator: "\n")
        #expect(!lines.contains { $0.contains("pre-main") || $0.hasPrefix("total") })
        let dyld = lines.filter { $0.hasPrefix("dyld[\(plan.pid)]: <") }
        #expect(dyld.count == 1 + 2 + LaunchPlanner.defaultSystemImages.count)
        #expect(dyld[0].hasSuffix("/Sample.app/Sample"))
        #expect(dyld[1].hasSuffix("/Sample.app/Frameworks/SampleKit.framework/SampleKit"))
        #expect(dyld[2].hasSuffix("/Sample.app/Frameworks/libSampleAnalytics.dylib"))
        #expect(lines.contains { $0.hasPrefix("[launchbench] mark=firstFrame t=") })
    }

    @Test func keepsRunningWhenExitAfterDoneIsOff() {
        let plan = Self.planner().plan(
            app: Self.app(AppProfile(exitAfterDone: false)), environment: [:], kind: .warm, launchNumber: 2)
        #expect(plan.ending == .running)
        #expect(Self.text(plan).hasSuffix("[launchbench] done\n"))
    }

    @Test func faultsStrikeOnTheChosenLaunchOnly() {
        let crash = AppProfile(faults: Faults(crash: CrashFault(when: LaunchSelector(launches: [2]))))
        let first = Self.planner().plan(app: Self.app(crash), environment: [:], kind: .cold, launchNumber: 1)
        let second = Self.planner().plan(app: Self.app(crash), environment: [:], kind: .warm, launchNumber: 2)
        #expect(first.ending == .exit(status: 0))
        #expect(second.ending == .stop(signal: 11))
        #expect(Self.text(second).contains("mark=main"))
        #expect(!Self.text(second).contains("didFinishLaunching"))

        let died = AppProfile(
            faults: Faults(
                crash: CrashFault(when: LaunchSelector(launches: [1]), after: "dyld", signal: 6, report: "exit")))
        let death = Self.planner().plan(
            app: Self.app(died), environment: ["DYLD_PRINT_STATISTICS": "1"], kind: .cold, launchNumber: 1)
        #expect(death.ending == .signal(6))
        #expect(Self.text(death).hasPrefix("Total pre-main time"))
        #expect(!Self.text(death).contains("[launchbench]"))

        let hang = AppProfile(faults: Faults(hang: PointFault(when: LaunchSelector(launches: [1]))))
        let hung = Self.planner().plan(app: Self.app(hang), environment: [:], kind: .cold, launchNumber: 1)
        #expect(hung.ending == .running)
        #expect(hung.outputs.isEmpty)

        let early = AppProfile(faults: Faults(earlyExit: ExitFault(when: LaunchSelector(probability: 1))))
        let exited = Self.planner().plan(
            app: Self.app(early), environment: ["DYLD_PRINT_STATISTICS": "1"], kind: .cold, launchNumber: 5)
        #expect(exited.ending == .exit(status: 1))
        #expect(!Self.text(exited).contains("[launchbench]"))

        let coldOnly = AppProfile(faults: Faults(crash: CrashFault(when: LaunchSelector(probability: 1, kind: "cold"))))
        #expect(
            Self.planner().plan(app: Self.app(coldOnly), environment: [:], kind: .warm, launchNumber: 4).ending
                == .exit(status: 0))
    }

    @Test func garbageInterleavesBytesThatAreNotUTF8() {
        let profile = AppProfile(
            faults: Faults(garbage: GarbageFault(when: LaunchSelector(probability: 1), chunks: 12, maxBytes: 40)))
        let plan = Self.planner().plan(
            app: Self.app(profile), environment: ["DYLD_PRINT_STATISTICS": "1"], kind: .cold, launchNumber: 1)
        #expect(String(validating: plan.allOutput, as: UTF8.self) == nil)
        #expect(plan.outputs.count >= 12 + 5)
        #expect(plan.ending == .exit(status: 0))
    }
}

@Suite struct LaunchPlanVersionTests {
    @Test func iOS9PrintsTheOldBlockAndIOS13OnlyWithAnOverride() {
        let app = LaunchPlanTests.app()
        let old = LaunchPlanTests.planner(OSVersion(9, 3, 5), model: "iPhone5,2").plan(
            app: app, environment: ["DYLD_PRINT_STATISTICS": "1", "DYLD_PRINT_LIBRARIES": "1"], kind: .cold,
            launchNumber: 1)
        let oldText = LaunchPlanTests.text(old)
        #expect(oldText.contains("\ntotal time: "))
        #expect(oldText.hasPrefix("dyld: loaded: /private/var/containers/Bundle/Application/"))
        #expect(!oldText.contains("Total pre-main"))
        // dyld ≤ 360 has no debugger pause or redone bindings: its total is the pre-main.
        #expect(old.counters.totalUs == old.counters.preMainUs)

        let plain = LaunchPlanTests.planner(OSVersion(13, 7)).plan(
            app: app, environment: ["DYLD_PRINT_STATISTICS": "1"], kind: .cold, launchNumber: 1)
        #expect(!LaunchPlanTests.text(plain).contains("Total pre-main"))
        let forced = LaunchPlanTests.planner(OSVersion(13, 7)).plan(
            app: app, environment: ["DYLD_PRINT_STATISTICS": "1", "DYLD_LIBRARY_PATH": "/none"], kind: .cold,
            launchNumber: 1)
        #expect(LaunchPlanTests.text(forced).hasPrefix("Total pre-main time: "))
    }
}
