import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice
import TestSupport
import Testing

extension RealPymobiledevice3Tests {
    /// The phone launches the app by itself between two of launchbench's launches (the emulated prelaunch
    /// fault): the run's kdebug session sees the exec it did not start, and the next cold launch carries it and
    /// is set aside.
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(5)), installed) struct PrelaunchKdebugTests {
        @Test func aPrewarmLabelsTheNextColdLaunchAndLeavesTheColdStatistics() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                let app = try EndToEnd.makeApp("Prewarmed", profile: EndToEnd.profile())
                // Each iteration reinstalls: install 2 comes right before iteration 2's cold launch.
                devices[0].prelaunches.schedule(.prewarm, bundleID: app.bundleID, afterInstall: 2)
                // Launch 7 (iteration 3's warm launch: the prelaunch is launch 4) finds its closure out of date.
                devices[0].closures.rebuild(app.bundleID, atLaunch: 7)
                var plan = EndToEnd.plan(app, devices: devices, iterations: 3)
                plan.premain = .kdebug
                let result = try await Pymobiledevice3EndToEnd.run(
                    plan, driver: try await Pymobiledevice3EndToEnd.driver(selection: .auto), readsKdebug: true)
                let samples = try result.samples
                #expect(samples.count == 6)
                #expect(samples.allSatisfy { $0.status == .ok }, "\(samples.map(\.message))")
                let made = try #require(devices[0].prelaunches.made.first)
                let labelled = samples.filter { $0.prelaunch != nil }
                #expect(labelled.map { "\($0.iteration) \($0.kind)" } == ["2 cold"])
                let prelaunch = try #require(labelled.first?.prelaunch)
                #expect(prelaunch.source == .kdebug)
                #expect(prelaunch.kind == .prewarm)
                // dyld ran the initializers and ended LAUNCH_EXECUTABLE: main was called.
                #expect(prelaunch.reached == .main)
                #expect(prelaunch.pid == made.pid)
                #expect(prelaunch.count == 1)
                #expect((prelaunch.secondsBefore ?? -1) > 0)
                #expect(labelled.first?.setAside == true)
                // The launch was measured from its own exec, not the prelaunch's.
                #expect(labelled.first?.premainSource == .kdebug)
                let rebuilt = samples.filter(\.closureRebuilt)
                #expect(rebuilt.map { "\($0.iteration) \($0.kind)" } == ["3 warm"])
                #expect(rebuilt.allSatisfy { $0.setAside })
                // The first launch after each install builds the closure as it should: not labelled.
                #expect(samples.filter { $0.kind == .cold && $0.iteration != 2 }.allSatisfy { !$0.setAside })

                let summary = try ResultsFolder.load(result.folder).summary
                let device = try #require(summary.devices.first)
                #expect(device.kind(.cold)?.launches == 2)
                #expect(device.kind(.warm)?.launches == 2)
                #expect(device.disturbed.setAsideCount == 2)
                #expect(
                    device.remarks.contains {
                        $0.hasPrefix("2 launches set aside") && $0.contains("iteration 2 cold after a prewarm")
                            && $0.contains("iteration 3 warm #1 dyld rebuilt its launch closure")
                    }, "\(device.remarks)")
            }
        }

        /// A closure generation: dyld builds the closure and exits before the initializers, so the label says
        /// dyld only; `--count-prelaunched` keeps the launch in the statistics, still named.
        @Test func aClosureGenerationIsCountedWhenAsked() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                let app = try EndToEnd.makeApp("ClosureBuilt", profile: EndToEnd.profile())
                devices[0].prelaunches.schedule(.closureGeneration, bundleID: app.bundleID, afterInstall: 1)
                var plan = EndToEnd.plan(app, devices: devices, iterations: 2, warm: 0)
                plan.premain = .kdebug
                plan.countPrelaunched = true
                let result = try await Pymobiledevice3EndToEnd.run(
                    plan, driver: try await Pymobiledevice3EndToEnd.driver(selection: .auto), readsKdebug: true)
                let samples = try result.samples
                let first = try #require(samples.first { $0.iteration == 1 })
                #expect(first.prelaunch?.kind == .closureGeneration)
                #expect(first.prelaunch?.reached == .dyld)
                #expect(!first.setAside)
                // The closure was built by the prelaunch: the launch builds none.
                #expect(first[.closureBuildMs] == nil)
                #expect(samples.allSatisfy { !$0.setAside && !$0.closureRebuilt })
                let device = try #require(try ResultsFolder.load(result.folder).summary.devices.first)
                #expect(device.kind(.cold)?.launches == 2)
                #expect(device.remarks.contains { $0.hasPrefix("1 launch disturbed but counted") }, "\(device.remarks)")
            }
        }
    }
}

/// Without a kdebug session, the device log: runningboardd's launch request naming the app, read through the
/// real libimobiledevice syslog_relay client from the emulated phone's relay.
@Suite(.tags(.emulator), .timeLimit(.minutes(3))) struct PrelaunchDeviceLogTests {
    @Test func aPrewarmInTheDeviceLogLabelsTheNextColdLaunch() async throws {
        try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
            let app = try EndToEnd.makeApp("LoggedPrewarm", profile: EndToEnd.profile())
            devices[0].prelaunches.schedule(.prewarm, bundleID: app.bundleID, afterInstall: 2)
            let result = try await EndToEnd.run(EndToEnd.plan(app, devices: devices, iterations: 3))
            let samples = try result.samples
            #expect(samples.count == 6)
            let labelled = samples.filter { $0.prelaunch != nil }
            #expect(labelled.map { "\($0.iteration) \($0.kind)" } == ["2 cold"])
            let prelaunch = try #require(labelled.first?.prelaunch)
            #expect(prelaunch.source == .deviceLog)
            #expect(prelaunch.kind == .prewarm)
            #expect(prelaunch.reason == "DAS Prewarm launch")
            #expect(prelaunch.pid == nil && prelaunch.reached == nil)
            #expect(labelled.first?.setAside == true)
            let device = try #require(try ResultsFolder.load(result.folder).summary.devices.first)
            #expect(device.kind(.cold)?.launches == 2)
            #expect(device.remarks.contains { $0.contains("seen in the device log") }, "\(device.remarks)")
            #expect(result.manifest.outcome(of: devices[0].udid)?.notes.contains { $0.contains("Prelaunches") } != true)
        }
    }
}
