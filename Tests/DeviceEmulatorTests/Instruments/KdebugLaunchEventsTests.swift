import Foundation
import LaunchBench
import Testing

@testable import DeviceEmulator

/// The emulated launch's kdebug events, read back by the core's kdebug reader: the phases equal what the same
/// launch prints as dyld statistics (the two sources of one launch must agree within 0.1 ms).
@Suite struct KdebugLaunchEventsTests {
    /// dyld 3 (iOS 13–14) prints statistics only when something forces dyld 2, such as an inserted library.
    static let statistics = EmulatorParserAgreementTests.env

    static func phases(_ plan: LaunchPlan, ios: OSVersion, closure: Bool = false) throws -> DyldLaunchPhases {
        let events = KdebugLaunchEvents(plan: plan, osVersion: ios, buildsClosure: closure)
        let records = events.timeline(execTick: 5_000_000_000).records
        let executable = String(plan.images.first?.path.split(separator: "/").last ?? "App")
        return try #require(DyldLaunchPhases(records: records, timebase: .iPhone, selection: .executable(executable)))
    }

    /// iOS 14 with an override variable takes the dyld2 path, which prints statistics but times no phase
    /// kdebug can read: its initializer, fixups and code-signature timers end as they start and it maps no
    /// image under MAP_IMAGE (dyld-832.7.3 `src/ImageLoaderMachO.cpp:2268`, `src/ImageLoader.cpp:522`,
    /// `:1134`). kdebug leaves the four phases empty, never 0; only the totals remain.
    @Test(arguments: 1...2)
    func onIOS14WithAnOverrideKdebugTimesOnlyTheTotal(launch: Int) throws {
        let ios = OSVersion(14, 8)
        let plan = LaunchPlanTests.planner(ios, model: "iPhone12,1").plan(
            app: LaunchPlanTests.app(), environment: Self.statistics, kind: launch == 1 ? .cold : .warm,
            launchNumber: launch)
        let printed = try #require(LaunchLogParser.parse(plan.allOutput).first)
        let traced = try Self.phases(plan, ios: ios, closure: launch == 1)
        #expect(traced.dyldLaunchMode == 2)
        #expect(traced.dylibLoadingMs == nil && traced.rebaseBindingMs == nil)
        #expect(traced.objcSetupMs == nil && traced.initializerMs == nil)
        #expect(traced.closureBuildMs == nil)  // the dyld2 path uses no launch closure
        #expect(traced.warnings.contains { $0.hasPrefix("A dyld2 launch") })
        #expect(traced.pid == plan.pid)
        // exec → main holds process creation too, which dyld's own total does not count.
        let creation = try #require(traced.processCreationMs)
        #expect(creation > 0.5 && creation < 1.6)
        let tracedTotal = try #require(traced.totalPremainMs)
        let printedTotal = try #require(printed.totalPremainMs)
        #expect(tracedTotal > printedTotal + creation)
    }

    @Test func initializersAreNamedByTheirImages() throws {
        let ios = OSVersion(16, 7)
        let plan = LaunchPlanTests.planner(ios, model: "iPhone14,5").plan(
            app: LaunchPlanTests.app(), environment: [:], kind: .cold, launchNumber: 1)
        let traced = try Self.phases(plan, ios: ios)
        #expect(traced.initializersByImage.keys.contains { $0.hasSuffix("/libSystem.B.dylib") })
        // dyld4: ObjC's setup of the launch's images runs inside libSystem's initializer, with no OBJC_MAP.
        let sum = traced.initializersByImage.values.reduce(0, +)
        #expect(abs(sum - Double(plan.phases.initializerUs + plan.phases.objcSetupUs) / 1000) < 0.01)
        #expect(!traced.timeline.contains { $0.kind == .objcMap } && traced.objcSetupMs == nil)
        #expect(traced.dyldLaunchMode == 4)
        let mapped = traced.timeline.filter { $0.kind == .mapImage }.compactMap(\.image)
        #expect(
            mapped.map { $0.split(separator: "/").suffix(2).joined(separator: "/") } == [
                "SampleKit.framework/SampleKit", "Frameworks/libSampleAnalytics.dylib",
            ])
    }

    /// dyld-940…960 (iOS 15) end its fixup and initializer timers as they start: empty, with a warning.
    @Test func iOS15sZeroLengthTimersAreNotMeasured() throws {
        let ios = OSVersion(15, 4)
        let plan = LaunchPlanTests.planner(ios, model: "iPhone13,2").plan(
            app: LaunchPlanTests.app(), environment: [:], kind: .warm, launchNumber: 2)
        let traced = try Self.phases(plan, ios: ios)
        #expect(traced.rebaseBindingMs == nil)
        #expect(traced.initializerMs == nil)
        #expect(traced.dylibLoadingMs != nil && traced.objcSetupMs == nil)
        #expect(!traced.warnings.isEmpty)
    }

    /// A crash before main: only what the process emitted before it died, so no main and no total.
    @Test func aLaunchThatDiesBeforeMainHasNoTotal() throws {
        let ios = OSVersion(16, 7)
        let faults = Faults(crash: CrashFault(when: LaunchSelector(launches: [1]), after: "start", signal: 11))
        let plan = LaunchPlanTests.planner(ios, model: "iPhone14,5").plan(
            app: LaunchPlanTests.app(AppProfile(faults: faults)), environment: [:], kind: .cold, launchNumber: 1)
        let traced = try Self.phases(plan, ios: ios)
        #expect(traced.totalPremainMs == nil)
        #expect(traced.mainMs == nil)
    }

    /// The first frame is on the same clock as dyld's events and matches the time the app's marker prints.
    @Test func theFirstFrameEndsUIKitsInitialFrameRendering() throws {
        let ios = OSVersion(17, 5)
        let plan = LaunchPlanTests.planner(ios, model: "iPhone15,4").plan(
            app: LaunchPlanTests.app(), environment: [:], kind: .cold, launchNumber: 1)
        let traced = try Self.phases(plan, ios: ios)
        let frame = try #require(traced.firstFrameMs)
        let marker = try #require(plan.markers.first { $0.name == "firstFrame" }?.ms)
        #expect(abs(frame - marker) < 0.001)
        #expect(frame > (traced.mainMs ?? .infinity))
    }

    /// An app that hangs after main never draws, and an app without LaunchProbe still does.
    @Test func noFrameAfterAHangButOneWithoutMarkers() throws {
        let ios = OSVersion(16, 7)
        let hang = Faults(hang: PointFault(when: LaunchSelector(launches: [1]), after: "main"))
        let hung = LaunchPlanTests.planner(ios, model: "iPhone14,5").plan(
            app: LaunchPlanTests.app(AppProfile(faults: hang)), environment: [:], kind: .cold, launchNumber: 1)
        #expect(try Self.phases(hung, ios: ios).firstFrameMs == nil)
        let silent = LaunchPlanTests.planner(ios, model: "iPhone14,5").plan(
            app: LaunchPlanTests.app(AppProfile(markers: [])), environment: [:], kind: .cold, launchNumber: 1)
        #expect(silent.markers.isEmpty)
        #expect(try Self.phases(silent, ios: ios).firstFrameMs != nil)
    }

    @Test func everyRecordIsOnTheLaunchedThreadXpcproxysOrLaunchds() {
        let plan = LaunchPlanTests.planner(OSVersion(18, 6), model: "iPhone17,3").plan(
            app: LaunchPlanTests.app(), environment: [:], kind: .cold, launchNumber: 1)
        let events = KdebugLaunchEvents(plan: plan, osVersion: OSVersion(18, 6), buildsClosure: true)
        let records = events.timeline(execTick: 1_000_000_000).records
        #expect(
            Set(records.map(\.threadID)) == [events.threadID, events.xpcproxyThread, KdebugLaunchEvents.launchdThread])
        #expect(records.map(\.timestamp) == records.map(\.timestamp).sorted())
    }

    /// dyld maps each embedded image under MAP_IMAGE and attaches its code signature inside that timer
    /// (dyld-1042.1 `Loader.cpp:1144`/`:1174`): dylib loading is the maps' time, the attaches counted once.
    @Test func codeSignaturesAreAttachedInsideTheirMaps() throws {
        let ios = OSVersion(18, 6)
        let plan = LaunchPlanTests.planner(ios, model: "iPhone17,3").plan(
            app: LaunchPlanTests.app(), environment: [:], kind: .cold, launchNumber: 1)
        let traced = try Self.phases(plan, ios: ios)
        let maps = traced.timeline.filter { $0.kind == .mapImage }
        let attaches = traced.timeline.filter { $0.kind == .attachCodeSignature }
        #expect(maps.count == 2 && attaches.count == 2)
        for (map, attach) in zip(maps, attaches) {
            #expect(map.startTimestamp < attach.startTimestamp && attach.endTimestamp < map.endTimestamp)
        }
        let mapped = maps.reduce(0) { $0 + $1.endMs - $1.startMs }
        #expect(abs((traced.dylibLoadingMs ?? 0) - mapped) < 0.000_1)
        #expect(abs(mapped - Double(plan.phases.dylibLoadingUs) / 1000) < 0.001)
    }

    /// xpcproxy's exec and dyld launch come first in the app's pid; the launch is the exec named as the app.
    @Test func xpcproxyExecsFirstInTheSamePid() throws {
        let ios = OSVersion(17, 5)
        let plan = LaunchPlanTests.planner(ios, model: "iPhone15,4").plan(
            app: LaunchPlanTests.app(), environment: [:], kind: .cold, launchNumber: 1)
        let events = KdebugLaunchEvents(plan: plan, osVersion: ios, buildsClosure: false)
        let records = events.timeline(execTick: 1_000_000_000).records
        let execs = records.filter { $0.debugID == .traceDataExec }
        #expect(execs.map(\.arg1) == [UInt64(plan.pid), UInt64(plan.pid)])
        #expect(execs.map(\.threadID) == [events.xpcproxyThread, events.threadID])
        let launchEnds = records.filter { $0.debugID.eventID == .dyldLaunchExecutable && $0.debugID.function == .end }
        #expect(launchEnds.count == 2)
        let traced = try Self.phases(plan, ios: ios)
        #expect(traced.mainThreadID == events.threadID && traced.execTimestamp == 5_000_000_000)
    }

    /// iOS 14 without an override variable is dyld3: LAUNCH_EXECUTABLE END arg4 = 3 and each initializer's
    /// timer ends as it starts (dyld-832.7.3 `dyld3/AllImages.cpp:1672`), so kdebug leaves initializer time
    /// empty, never 0; with an override it is the dyld2 path (mode 2).
    @Test func iOS14WithoutAnOverrideIsDyld3() throws {
        let ios = OSVersion(14, 8)
        let plan = LaunchPlanTests.planner(ios, model: "iPhone12,1").plan(
            app: LaunchPlanTests.app(), environment: [:], kind: .cold, launchNumber: 1)
        #expect(!plan.takesDyld2Path)
        let traced = try Self.phases(plan, ios: ios)
        #expect(traced.dyldLaunchMode == 3)
        let initializers = traced.timeline.filter { $0.kind == .staticInitializer }
        #expect(!initializers.isEmpty && initializers.allSatisfy { $0.ticks == 0 })
        #expect(traced.initializerMs == nil && traced.objcSetupMs == nil)
        #expect(traced.dylibLoadingMs != nil && traced.rebaseBindingMs != nil && traced.totalPremainMs != nil)
        #expect(traced.warnings.contains { $0.hasPrefix("A dyld3 launch") })
        let overridden = LaunchPlanTests.planner(ios, model: "iPhone12,1").plan(
            app: LaunchPlanTests.app(), environment: Self.statistics, kind: .cold, launchNumber: 1)
        #expect(overridden.takesDyld2Path)
        #expect(try Self.phases(overridden, ios: ios).dyldLaunchMode == 2)
    }
}
