import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice
import TestSupport
import Testing

extension RealPymobiledevice3Tests {
    /// An A/B run timed by kdebug where the phone prewarms the base build (the emulated prelaunch fault): BASE's
    /// pipeline labels its launches from the device's one kdebug session exactly as NEW's does.
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(5)), installed) struct ABRunPrelaunchKdebugTests {
        @Test func aPrewarmOfTheBaseBuildSetsBasesNextColdLaunchAside() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                let base = try EndToEnd.makeApp("Prewarmed", profile: EndToEnd.profile())
                let new = try EndToEnd.makeApp("Prewarmed", profile: EndToEnd.profile(), bundleID: base.bundleID)
                // Iteration 1 installs NEW, then BASE (install 2): the phone prewarms BASE before its cold launch.
                devices[0].prelaunches.schedule(.prewarm, bundleID: base.bundleID, afterInstall: 2)
                let (_, newSamples, baseSamples) = try await ABRunKdebugTests.run(
                    new, against: base, devices: devices, iterations: 2, warm: 0)
                #expect(newSamples.count == 2 && baseSamples.count == 2)
                #expect((newSamples + baseSamples).allSatisfy { $0.status == .ok }, "\(baseSamples.map(\.message))")
                let labelled = baseSamples.filter { $0.prelaunch != nil }
                #expect(labelled.map { "\($0.iteration) \($0.kind)" } == ["1 cold"])
                let made = try #require(devices[0].prelaunches.made.first)
                #expect(labelled.first?.prelaunch?.source == .kdebug)
                #expect(labelled.first?.prelaunch?.pid == made.pid)
                #expect(labelled.first?.setAside == true)
                #expect(newSamples.allSatisfy { $0.prelaunch == nil && !$0.setAside })
            }
        }
    }
}
