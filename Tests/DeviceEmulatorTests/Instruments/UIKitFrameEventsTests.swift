import Foundation
import LaunchBench
import Testing

@testable import DeviceEmulator

/// The emulated phone's Initial Frame Rendering events as some apps send them on real phones (py-ios-device PR
/// #127): ENDs before UIKit's BEGIN, or no BEGIN at all, read back by the core's kdebug reader.
@Suite struct UIKitFrameEventsTests {
    static func plan(_ frames: UIKitFrameEvents?, device: UIKitFrameEvents? = nil, ios: OSVersion = OSVersion(17, 5))
        -> LaunchPlan
    {
        var profile = AppProfile(markers: [])
        profile.uikitFrames = frames
        var planner = LaunchPlanTests.planner(ios, model: "iPhone15,4")
        if let device {
            var moment = DeviceMoment(start: 1, launch: 1, variation: nil)
            moment.uikitFrames = device
            planner.device = moment
        }
        return planner.plan(app: LaunchPlanTests.app(profile), environment: [:], kind: .cold, launchNumber: 1)
    }

    static func frameEnds(_ plan: LaunchPlan, ios: OSVersion = OSVersion(17, 5)) -> [KdebugRecord] {
        KdebugLaunchEvents(plan: plan, osVersion: ios, buildsClosure: false).timeline(execTick: 5_000_000_000)
            .records.filter { $0.debugID == KdebugLaunchEvents.frameEnd }
    }

    /// Two ENDs before the BEGIN, inside didFinishLaunching; the first frame is still the plan's, anchored.
    @Test(arguments: [OSVersion(16, 7), OSVersion(17, 5), OSVersion(26, 1)])
    func strayEndsComeBeforeTheBeginAndTheFrameIsTheTruth(ios: OSVersion) throws {
        let plan = Self.plan(UIKitFrameEvents(strayEnds: 2), ios: ios)
        #expect(Self.frameEnds(plan, ios: ios).count == 3)
        let phases = try KdebugLaunchEventsTests.phases(plan, ios: ios)
        let truth = try #require(plan.firstFrameMs)
        #expect(abs(try #require(phases.firstFrameMs) - truth) < 0.001)
        #expect(phases.firstFrameSource == .uikitAnchored)
        #expect(phases.strayFrameEndTimestamps.count == 2)
        let finished = try #require(phases.didFinishLaunchingMs)
        for stray in phases.strayFrameEndTimestamps {
            let ms = phases.timebase.milliseconds(from: phases.originTimestamp, to: stray)
            #expect(ms < finished && ms > (phases.mainMs ?? .infinity))
        }
    }

    /// Without the BEGIN the frame is the first END after didFinishLaunching, said to be unanchored.
    @Test func withoutTheBeginTheFrameIsUnanchored() throws {
        let plan = Self.plan(UIKitFrameEvents(strayEnds: 1, begin: false))
        let phases = try KdebugLaunchEventsTests.phases(plan, ios: OSVersion(17, 5))
        #expect(phases.frameBeginTimestamp == nil)
        #expect(phases.firstFrameSource == .uikitUnanchored)
        #expect(abs(try #require(phases.firstFrameMs) - (plan.firstFrameMs ?? 0)) < 0.001)
    }

    /// The emulator's switch applies to every app of the phone; an app profile's fields win.
    @Test func theDeviceSwitchAppliesUnlessTheProfileSaysOtherwise() {
        #expect(Self.frameEnds(Self.plan(nil)).count == 1)
        #expect(Self.frameEnds(Self.plan(nil, device: UIKitFrameEvents(strayEnds: 1))).count == 2)
        #expect(
            Self.frameEnds(Self.plan(UIKitFrameEvents(strayEnds: 0), device: UIKitFrameEvents(strayEnds: 1))).count
                == 1)
    }

    /// A profile asking for more strays than a launch could send is refused by name.
    @Test func aProfileWithTooManyStraysIsRefused() throws {
        let json = #"{"schemaVersion": 1, "uikitFrames": {"strayEnds": 101}}"#
        #expect(throws: AppProfileError.self) { try AppProfile.decode(Data(json.utf8)) }
        let fine = try AppProfile.decode(Data(#"{"uikitFrames": {"strayEnds": 1, "begin": false}}"#.utf8))
        #expect(fine.uikitFrames == UIKitFrameEvents(strayEnds: 1, begin: false))
    }
}
