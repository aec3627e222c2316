import EmulatorTestSupport
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice
import TestSupport
import Testing

@testable import DeviceEmulator

extension RealPymobiledevice3TunnelTests.DoctorTests {
    /// Issue 50: doctor says, for the user's app, whether its launch sends stray Initial Frame Rendering ENDs
    /// and whether UIKit's BEGIN anchors the first frame.
    @Test func theFirstFrameRowSaysWhetherTheAppSendsStraysAndTheBeginAnchorsThem() async throws {
        try await EndToEnd.withDevices([("iPhone15,4", "17.5")]) { devices in
            var stray = EndToEnd.profile()
            stray.uikitFrames = UIKitFrameEvents(strayEnds: 2)
            let anchored = try await Self.doctor(devices[0], app: try EndToEnd.makeApp("DoctorStray", profile: stray))
                .report
            let row = try #require(anchored[.firstFrame])
            #expect(row.state == .holds && !row.needed, "\(anchored.render())")
            #expect(row.detail.contains("after its BEGIN (anchored); 2 stray ENDs before the BEGIN"), "\(row.detail)")

            var unanchored = stray
            unanchored.uikitFrames = UIKitFrameEvents(strayEnds: 1, begin: false)
            let report = try await Self.doctor(
                devices[0], app: try EndToEnd.makeApp("DoctorNoBegin", profile: unanchored)
            ).report
            let missing = try #require(report[.firstFrame])
            #expect(missing.state == .fails && !missing.needed, "\(report.render())")
            #expect(missing.detail.contains("never came: the first frame is unanchored"), "\(missing.detail)")
            #expect(missing.fix?.contains("LaunchProbe's firstFrame marker") == true)
            #expect(report.ready, "\(report.render())")  // a fact to report, not a requirement
        }
    }
}
