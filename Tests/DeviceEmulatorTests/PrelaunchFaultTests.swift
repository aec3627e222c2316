import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import DeviceEmulator

/// The prelaunch fault as `launchbench emulator` users drive it: a lab command, the device log's line on the
/// syslog relay, the prelaunch's exec in the record of what the phone did, and a next launch that is warm.
@Suite(.tags(.emulator), .timeLimit(.minutes(2))) struct PrelaunchFaultTests {
    @Test func theCommandParses() throws {
        #expect(
            try LabControl.parse("prelaunch U a.b") == .prelaunch(udid: "U", bundleID: "a.b", reason: .prewarm))
        #expect(
            try LabControl.parse("prelaunch U a.b closure")
                == .prelaunch(udid: "U", bundleID: "a.b", reason: .closureGeneration))
        #expect(throws: EmulatorError.self) { try LabControl.parse("prelaunch U a.b soon") }
        #expect(throws: EmulatorError.self) { try LabControl.parse("prelaunch U") }
    }

    @Test func aPrelaunchWritesTheLogLineAndLeavesTheNextLaunchWarm() async throws {
        let spec = EmulatedDeviceSpec.numbered(610, productType: "iPhone14,5", osVersion: "16.7")
        try await PrivateLab.with(devices: [spec]) { lab in
            let device = try #require(lab.device(udid: spec.udid))
            let app = try AppBundleLoader.load(FixturePaths.sampleApp)
            #expect(
                await LabControl.handle("prelaunch \(spec.udid) \(app.bundleID)", on: lab)?.hasPrefix("error:") == true)
            device.services.install(app)
            let reply = await LabControl.handle("prelaunch \(spec.udid) \(app.bundleID) closure", on: lab)
            #expect(reply == "ok \(spec.udid) prelaunched \(app.bundleID) (DAS DYLD3 Closure Generation)")
            #expect(device.prelaunches.made.map(\.reason) == [.closureGeneration])
            // The prelaunch used up the first launch after the install: the next one is warm, its closure built.
            #expect(device.services.beginLaunch(app.bundleID).kind == .warm)
            #expect(!device.closures.build(app.bundleID, cold: true, launchNumber: 3))
            #expect(SyslogRelay.timestamp(Date(timeIntervalSince1970: 0)) == "Jan 01 00:00:00")
        }
    }
}
