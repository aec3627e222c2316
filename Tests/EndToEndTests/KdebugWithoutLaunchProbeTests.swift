import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice
import TestSupport
import Testing

extension RealPymobiledevice3Tests {
    /// The README's "no change to the app", end to end: an app without LaunchProbe prints nothing and stays
    /// alive until killed, as real apps do. kdebug alone ends each launch (its first frame) and measures it.
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(5)), installed) struct KdebugWithoutLaunchProbeTests {
        @Test func anAppWithoutLaunchProbeGivesOkLaunchesOnIOS14To18() async throws {
            try await EndToEnd.withDevices([
                ("iPhone12,1", "14.8"), ("iPhone14,5", "16.7"), ("iPhone15,4", "17.5"), ("iPhone17,3", "18.6"),
            ]) { devices in
                var profile = EndToEnd.profile()
                profile.markers = []
                profile.printsDone = false
                profile.exitAfterDone = false
                let app = try EndToEnd.makeApp("Untouched", profile: profile)
                var plan = EndToEnd.plan(app, devices: devices, iterations: 1)
                plan.premain = .kdebug
                let started = ContinuousClock.now
                let result = try await Pymobiledevice3EndToEnd.run(
                    plan, driver: try await Pymobiledevice3EndToEnd.driver(selection: .auto), readsKdebug: true)
                let samples = try result.samples
                #expect(samples.count == 8)
                for sample in samples {
                    let label = "\(sample.osVersion) \(sample.kind): \(sample.message ?? "") \(sample.warnings)"
                    #expect(sample.status == .ok, "\(label)")
                    #expect(sample.message == nil, "\(label)")
                    #expect(sample.premainSource == .kdebug, "\(label)")
                    for metric in [
                        Metric.totalPremainMs, .processCreationMs, .dylibLoadingMs, .rebaseBindingMs, .firstFrameMs,
                    ] {
                        #expect(sample[metric] != nil, "\(metric) \(label)")
                    }
                    // iOS 14 without an override is dyld3, whose initializer timers end at once: empty, said.
                    let dyld3 = sample.osVersion == "14.8"
                    #expect((sample[.initializerMs] == nil) == dyld3, "\(label)")
                    #expect(sample.warnings.contains { $0.contains("A dyld3 launch") } == dyld3, "\(label)")
                    #expect(sample[.mainMs] == nil)  // no LaunchProbe, no main marker
                    #expect(sample[.objcSetupMs] == nil, "\(label)")
                    #expect(sample.warnings.contains { $0.contains("No OBJC_MAP") }, "\(label)")
                    #expect(!sample.warnings.contains { $0.contains("LaunchProbe") }, "\(label)")
                    #expect(sample.exitStatus == nil && sample.signal == nil)  // ended by launchbench
                }
                // Ended at the first frame plus the grace, not at the 20 s timeout.
                #expect(ContinuousClock.now - started < .seconds(60))
                for device in devices {
                    #expect(result.manifest.outcome(of: device.udid)?.outcome == .measured)
                }
            }
        }

        /// The same through the built CLI: `launchbench run` of the untouched app on an emulated 16.7 phone
        /// exits 0 with ok samples, and tells the user nothing about adding LaunchProbe.
        @Test func theCLIExitsZeroForAnAppWithoutLaunchProbe() async throws {
            try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "16.7")) { lab in
                var profile = EndToEnd.profile()
                profile.markers = []
                profile.printsDone = false
                profile.exitAfterDone = false
                let app = try EndToEnd.makeApp("UntouchedCLI", profile: profile)
                let output = EndToEnd.temporaryFolder("untouched-cli").appendingPathComponent("results")
                let child = try LaunchbenchCLI.start(
                    [
                        "run", app.url.path, "--iterations", "2", "--premain", "kdebug", "--grace", "1",
                        "--timeout", "60", "--output", output.path,
                    ],
                    environment: ["USBMUXD_SOCKET_ADDRESS": lab.usbmuxdSocketAddress, "NO_COLOR": "1"])
                #expect(try await child.waitForExit(timeout: .seconds(120)) == 0, "\(child.standardError)")
                let samples = try EndToEnd.samplesOnDisk(output)
                #expect(samples.count == 4)
                #expect(samples.allSatisfy { $0.status == .ok && $0.premainSource == .kdebug })
                #expect(samples.allSatisfy { $0[.firstFrameMs] != nil && $0[.totalPremainMs] != nil })
                let said = child.standardOutput + child.standardError
                #expect(said.contains("the app needs no LaunchProbe"), "\(said)")
                #expect(!said.contains("add the LaunchProbe") && !said.contains("add LaunchProbe"), "\(said)")
            }
        }
    }
}
