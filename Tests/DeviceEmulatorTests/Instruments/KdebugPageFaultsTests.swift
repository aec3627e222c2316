import Foundation
import LaunchBench
import Testing

@testable import DeviceEmulator

/// The emulated launch's page faults and UIKit lifecycle codes, read back by the core's kdebug reader: a cold
/// launch reads the app's text pages from their files (`DBG_PAGEINV_FAULT`), a warm one finds them in the
/// file cache (`DBG_CACHE_HIT_FAULT`); `__DATA` writes and fresh pages fault on both.
@Suite struct KdebugPageFaultsTests {
    static func phases(ios: OSVersion, kind: LaunchKindName, profile: AppProfile = AppProfile()) throws
        -> (LaunchPlan, DyldLaunchPhases)
    {
        let plan = LaunchPlanTests.planner(ios, model: "iPhone15,4").plan(
            app: LaunchPlanTests.app(profile), environment: [:], kind: kind, launchNumber: kind == .cold ? 1 : 2)
        return (plan, try KdebugLaunchEventsTests.phases(plan, ios: ios))
    }

    @Test(arguments: [OSVersion(16, 7), OSVersion(17, 5), OSVersion(18, 6)])
    func coldLaunchesPageInAndWarmOnesHitTheCache(ios: OSVersion) throws {
        let (cold, coldPhases) = try Self.phases(ios: ios, kind: .cold)
        let (_, warmPhases) = try Self.phases(ios: ios, kind: .warm)
        let text = KdebugPageFaults.executablePages + KdebugPageFaults.frameworkPages * (cold.appImageCount - 1)
        let coldFaults = try #require(coldPhases.pageIns)
        let warmFaults = try #require(warmPhases.pageIns)
        #expect(coldFaults.pageIns == text && coldFaults.cacheHits == 0)
        #expect(warmFaults.pageIns == 0 && warmFaults.cacheHits == text)
        #expect(coldFaults.pageInMs > warmFaults.pageInMs)
        for faults in [coldFaults, warmFaults] {
            #expect(faults.copyOnWrite == KdebugPageFaults.dataPages * cold.appImageCount)
            #expect(faults.zeroFill == KdebugPageFaults.zeroFillPages)
            #expect(faults.compressor == 0)
        }
        // Every page-in lies in an app image's range (its UUID map's load address up to the next one).
        #expect(coldFaults.byImage.reduce(0) { $0 + $1.pageIns } == text)
        #expect(coldFaults.byImage.first?.image == cold.images.first?.path)
        #expect(coldFaults.byImage.first?.pageIns == KdebugPageFaults.executablePages)
    }

    /// Without LaunchProbe the trace still says when didFinishLaunching returned (code 26) and when the first
    /// frame was drawn, and UIKit's phases lie between main and that frame.
    @Test func uikitsCodesGiveDidFinishLaunchingWithoutMarkers() throws {
        let ios = OSVersion(17, 5)
        let (plan, phases) = try Self.phases(ios: ios, kind: .cold, profile: AppProfile(markers: []))
        #expect(plan.markers.isEmpty)
        let planned = try #require(plan.didFinishLaunchingMs)
        let traced = try #require(phases.didFinishLaunchingMs)
        #expect(abs(traced - planned) < 0.001)
        let frame = try #require(phases.firstFrameMs)
        let main = try #require(phases.mainTimestamp)
        #expect(traced < frame)
        #expect(
            phases.uikitSpans.map(\.name) == [
                "UIKit initialization", "UIKit scene creation", "willFinishLaunchingWithOptions()",
                "UIKit scene creation", "didFinishLaunchingWithOptions()", "UIKit scene creation",
                "scene(_:willConnectTo:)", "UIKit scene creation", "sceneWillEnterForeground()",
                "UIKit scene creation", "Initial frame rendering",
            ])
        #expect(phases.uikitSpans.allSatisfy { $0.startTimestamp >= main && $0.endTimestamp >= $0.startTimestamp })
    }
}
