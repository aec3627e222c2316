import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import MobileDevice
import TestSupport
import Testing

@testable import LaunchEngines

extension RealPymobiledevice3Tests {
    /// Issue 44 items 5 and 12, through the real pymobiledevice3 and the emulated phone: output that follows the
    /// termination notice counts for a bounded grace, a launch whose markers come later says so, and a kdebug
    /// helper killed mid-launch ends that launch at once with the helper's cause.
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(5)), installed) struct ProcessControlLateOutputTests {
        static let phone = [("iPhone14,5", "16.7")]
        /// How the warning of a launch whose output was lost begins (`LaunchWatcher.outputLostWarning`).
        static let lostWarning = "The app's output stopped arriving mid-launch"

        static func run(_ profile: AppProfile, devices: [EmulatedDevice], name: String, timeout: Duration)
            async throws -> RunResult
        {
            let app = try EndToEnd.makeApp(name, profile: profile)
            var plan = EndToEnd.plan(app, devices: devices, iterations: 1, timeout: timeout)
            plan.premain = .kdebug
            plan.launcher = .processControl
            return try await Pymobiledevice3EndToEnd.run(
                plan, driver: try await Pymobiledevice3EndToEnd.driver(selection: .auto), readsKdebug: true)
        }

        /// The markers arrive 50 ms after the termination notice (within the 500 ms grace): every launch keeps
        /// main_ms and did_finish_launching_ms.
        @Test func markersFiftyMillisecondsAfterTheNoticeStillCount() async throws {
            try await EndToEnd.withDevices(Self.phone) { devices in
                devices[0].processControlLateOutputs = 2
                devices[0].processControlLateOutputDelay = .milliseconds(50)
                let result = try await Self.run(
                    EndToEnd.profile(), devices: devices, name: "Late50", timeout: .seconds(20))
                let samples = try result.samples
                #expect(samples.count == 2)
                for sample in samples {
                    let label = "\(sample.kind): \(sample.status) \(sample.message ?? "") \(sample.warnings)"
                    #expect(sample.status == .ok, "\(label)")
                    #expect(sample[.mainMs] != nil && sample[.didFinishLaunchingMs] != nil, "\(label)")
                    #expect(!sample.warnings.contains { $0.hasPrefix(Self.lostWarning) }, "\(label)")
                }
            }
        }

        /// Markers that come 2 s after the termination notice, past the grace, are lost: each launch keeps its
        /// kdebug numbers and says its markers are missing, never a quiet `ok` with an empty after-main.
        @Test func markersPastTheGraceAreSaidToBeLost() async throws {
            try await EndToEnd.withDevices(Self.phone) { devices in
                devices[0].processControlLateOutputs = 2
                devices[0].processControlLateOutputDelay = .seconds(2)
                let result = try await Self.run(
                    EndToEnd.profile(), devices: devices, name: "Late2s", timeout: .seconds(20))
                let samples = try result.samples
                #expect(samples.count == 2)
                for sample in samples {
                    let label = "\(sample.kind): \(sample.status) \(sample.message ?? "") \(sample.warnings)"
                    #expect(sample[.totalPremainMs] != nil, "\(label)")
                    #expect(sample[.mainMs] == nil, "\(label)")
                    let warning = sample.warnings.first { $0.hasPrefix(Self.lostWarning) }
                    #expect(warning?.contains("termination notice") == true, "\(label)")
                }
            }
        }

        /// The kdebug helper's pid for `udid` among this process's helpers (its command line names both).
        static func helper(of udid: String) -> Int32? {
            HelperRegistry.alive.first { pid in
                guard let line = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")) else {
                    return false
                }
                let words = line.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
                return words.contains { $0.hasSuffix("kdebug_tap.py") } && words.contains(udid)
            }
        }

        /// The cold launch hangs after main (it would run to `--timeout`); its helper is SIGKILLed while it runs.
        /// The launch ends at once naming the helper's death, not the app ("Raise --timeout"), and the warm
        /// launch after it is measured by the restarted helper.
        @Test func aHelperKilledMidLaunchEndsThatLaunchWithItsCause() async throws {
            try await EndToEnd.withDevices(Self.phone) { devices in
                var profile = EndToEnd.profile()
                profile.faults = Faults(hang: PointFault(when: LaunchSelector(launches: [1]), after: "main"))
                let device = devices[0]
                let killer = Task {
                    let deadline = ContinuousClock.now + .seconds(60)
                    while ContinuousClock.now < deadline {
                        if device.services.launchHistory.count == 1, let pid = Self.helper(of: device.udid) {
                            try? await Task.sleep(for: .milliseconds(300))  // the app is past main, hanging
                            kill(pid, SIGKILL)
                            return true
                        }
                        try? await Task.sleep(for: .milliseconds(20))
                    }
                    return false
                }
                let started = ContinuousClock.now
                let result = try await Self.run(profile, devices: devices, name: "DeadHelper", timeout: .seconds(90))
                let took = ContinuousClock.now - started
                #expect(await killer.value)
                let samples = try result.samples
                #expect(samples.count == 2)
                let cold = try #require(samples.first)
                let label = "\(cold.status) \(cold.message ?? "") \(cold.warnings)"
                #expect(cold.status != .timeout, "\(label)")
                #expect(cold.message?.contains("kdebug helper") == true, "\(label)")
                #expect(cold.message?.contains("Raise --timeout") == false, "\(label)")
                // Ended when the helper died, not at the 90 s --timeout (a bound far from both).
                #expect(took < .seconds(45), "\(took)")
                let warm = try #require(samples.last)
                #expect(warm.status == .ok, "\(warm.status) \(warm.message ?? "") \(warm.warnings)")
                #expect(warm[.totalPremainMs] != nil)
            }
        }
    }
}
