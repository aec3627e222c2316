import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice
import TestSupport
import Testing

extension RealPymobiledevice3Tests {
    /// Launching without a debugger, end to end: with kdebug as the source, each launch goes through the
    /// instruments service's process control over the kdebug session's own connection (lockdown with TLS on
    /// 14.8 and 16.7, the userspace tunnel on 17.5 and 18.6). LaunchProbe's markers arrive as output events; an
    /// app without LaunchProbe is measured by kdebug alone and ended by launchbench.
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(5)), installed) struct ProcessControlLauncherTests {
        static let phones = [
            ("iPhone12,1", "14.8"), ("iPhone14,5", "16.7"), ("iPhone15,4", "17.5"), ("iPhone17,3", "18.6"),
        ]

        static func run(
            _ profile: AppProfile, launcher: LauncherChoice, devices: [EmulatedDevice], name: String,
            premain: PremainSelection = .kdebug
        ) async throws -> RunResult {
            let app = try EndToEnd.makeApp(name, profile: profile)
            var plan = EndToEnd.plan(app, devices: devices, iterations: 1)
            plan.premain = premain
            plan.launcher = launcher
            return try await Pymobiledevice3EndToEnd.run(
                plan, driver: try await Pymobiledevice3EndToEnd.driver(selection: .auto), readsKdebug: true)
        }

        @Test(arguments: [LauncherChoice.auto, .processControl])
        func launchProbesMarkersArriveThroughProcessControl(launcher: LauncherChoice) async throws {
            try await EndToEnd.withDevices(Self.phones) { devices in
                let result = try await Self.run(
                    EndToEnd.profile(), launcher: launcher, devices: devices, name: "Controlled")
                let samples = try result.samples
                #expect(samples.count == 8)
                for sample in samples {
                    let label = "\(sample.osVersion) \(sample.kind): \(sample.message ?? "") \(sample.warnings)"
                    #expect(sample.status == .ok, "\(label)")
                    #expect(sample.launcher == .processControl, "\(label)")
                    #expect(sample.premainSource == .kdebug, "\(label)")
                    for metric in [Metric.totalPremainMs, .mainMs, .didFinishLaunchingMs, .firstFrameMs, .wallMs] {
                        #expect(sample[metric] != nil, "\(metric) \(label)")
                    }
                    #expect(sample.exitStatus == 0, "\(label)")  // LaunchProbe exits after `done`
                }
                for device in devices {
                    #expect(device.services.launchHistory.count == 2)
                    #expect(result.manifest.outcome(of: device.udid)?.outcome == .measured)
                    #expect(result.manifest.outcome(of: device.udid)?.launcher == .processControl)
                }
            }
        }

        @Test func anAppWithoutLaunchProbeIsMeasuredByKdebugAndEndedByLaunchbench() async throws {
            try await EndToEnd.withDevices(Self.phones) { devices in
                var profile = EndToEnd.profile()
                profile.markers = []
                profile.printsDone = false
                profile.exitAfterDone = false
                let result = try await Self.run(profile, launcher: .processControl, devices: devices, name: "Bare")
                let samples = try result.samples
                #expect(samples.count == 8)
                for sample in samples {
                    let label = "\(sample.osVersion) \(sample.kind): \(sample.message ?? "") \(sample.warnings)"
                    #expect(sample.status == .ok, "\(label)")
                    #expect(sample.launcher == .processControl, "\(label)")
                    #expect(sample[.firstFrameMs] != nil && sample[.totalPremainMs] != nil, "\(label)")
                    #expect(sample[.mainMs] == nil, "\(label)")
                    #expect(sample.exitStatus == nil && sample.signal == nil, "\(label)")  // ended by launchbench
                }
            }
        }

        /// A crash is the signal of process control's termination notice, recorded as `crashed`.
        @Test func aCrashIsRecordedWithItsSignal() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                let crash = Faults(crash: CrashFault(when: LaunchSelector(launches: [1]), after: "main", signal: 11))
                let result = try await Self.run(
                    EndToEnd.profile(faults: crash), launcher: .processControl, devices: devices, name: "Crashing")
                let first = try #require(try result.samples.first)
                #expect(first.status == .crashed, "\(first.message ?? "")")
                #expect(first.signal == 11)
                #expect(first.launcher == .processControl)
            }
        }

        /// `--launcher debugserver` keeps the debugger, kdebug or not.
        @Test func debugserverStaysWhenAsked() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                let result = try await Self.run(
                    EndToEnd.profile(), launcher: .debugserver, devices: devices, name: "Debugged")
                let samples = try result.samples
                #expect(samples.count == 2)
                for sample in samples {
                    #expect(sample.status == .ok && sample.launcher == .debugserver, "\(sample.message ?? "")")
                }
                #expect(result.manifest.outcome(of: devices[0].udid)?.launcher == .debugserver)
            }
        }

        /// FrontBoard refuses an app whose signature is invalid and one whose developer the phone's user has not
        /// trusted with one reason (Security): each launch is refused with the cause, the phone's words and the fix.
        @Test(arguments: ["signature", "untrusted profile"])
        func anAppThePhoneWillNotLaunchIsRefusedWithTheCauseAndTheFix(fault: String) async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                var profile = EndToEnd.profile()
                if fault == "signature" {
                    profile.codeSignatureValid = false
                } else {
                    devices[0].services.trustsAppDevelopers = false
                }
                let result = try await Self.run(profile, launcher: .processControl, devices: devices, name: "Refused")
                let samples = try result.samples
                #expect(!samples.isEmpty)
                for sample in samples {
                    let message = sample.message ?? ""
                    #expect(sample.status == .launchRefused && sample.launcher == .processControl, "\(message)")
                    #expect(message.contains("FBSOpenApplicationErrorDomain code 3 Security"), "\(message)")
                    #expect(message.contains("code signature is invalid"), "\(message)")
                    #expect(message.contains("Settings > General > VPN & Device Management"), "\(message)")
                }
                #expect(devices[0].services.launchHistory.isEmpty)
            }
        }

        /// With Developer Mode off the phone offers no instruments service, so no trace session and no process
        /// control: an explicit `processcontrol` skips the device naming Developer Mode and how to turn it on (issue
        /// 43: what was asked for and cannot be had is refused, not measured another way); `auto` falls back to
        /// debugserver and says so, and debugserver, also on the image Developer Mode keeps from being mounted,
        /// refuses the launch naming it. Pre-main is `auto` here: an explicit kdebug would skip both.
        @Test(arguments: [LauncherChoice.auto, .processControl])
        func withDeveloperModeOff(launcher: LauncherChoice) async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                devices[0].setLockdownValue(false, domain: "com.apple.security.mac.amfi", key: "DeveloperModeStatus")
                let result = try await Self.run(
                    EndToEnd.profile(), launcher: launcher, devices: devices, name: "NoDeveloperMode", premain: .auto)
                try Self.expectRefusedOrSkipped(
                    result, launcher: launcher, udid: devices[0].udid,
                    naming: ["Developer Mode is off", "Settings > Privacy & Security > Developer Mode"])
            }
        }

        /// What a phone without the instruments service gives each launcher choice: `auto` launches through
        /// debugserver, which the phone refuses naming the cause, and says so in a note; an explicit
        /// `processcontrol` skips the device with the cause and takes no launch.
        static func expectRefusedOrSkipped(
            _ result: RunResult, launcher: LauncherChoice, udid: String, naming causes: [String]
        ) throws {
            let samples = try result.samples
            let outcome = result.manifest.outcome(of: udid)
            let notes = outcome?.notes ?? []
            #expect(notes.contains { $0.contains(causes[0]) }, "\(notes)")
            if launcher == .processControl {
                #expect(samples.isEmpty && outcome?.outcome == .skipped, "\(samples.count) \(notes)")
                return
            }
            #expect(!samples.isEmpty)
            for sample in samples {
                let label = "\(sample.status) \(sample.message ?? "")"
                #expect(sample.status == .launchRefused && sample.launcher == .debugserver, "\(label)")
                for cause in causes { #expect(sample.message?.contains(cause) == true, "\(label)") }
            }
            #expect(notes.contains { $0.contains("launches go through debugserver, not process control") }, "\(notes)")
        }

        /// The phone cancels processcontrol's channel right after the cold launch's first write: the rest of its
        /// output never arrives, kdebug completes the launch and keeps its numbers, and the sample says why its
        /// markers are missing. The warm launch reopens the channel and is whole.
        @Test func aLaunchWhoseOutputIsLostKeepsItsKdebugNumbers() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                devices[0].services.processControlChannelDrops = 1
                let result = try await Self.run(
                    EndToEnd.profile(), launcher: .processControl, devices: devices, name: "Lost")
                let samples = try result.samples
                #expect(samples.count == 2)
                let cold = try #require(samples.first)
                let label = "\(cold.status) \(cold.message ?? "") \(cold.warnings)"
                #expect(cold.status == .ok, "\(label)")
                #expect(cold.premainSource == .kdebug && cold[.totalPremainMs] != nil, "\(label)")
                #expect(cold[.firstFrameMs] != nil, "\(label)")
                #expect(cold.warnings.contains { $0.contains("output stopped arriving") }, "\(label)")
                let warm = try #require(samples.last)
                #expect(warm.status == .ok, "\(warm.message ?? "")")
                #expect(!warm.warnings.contains { $0.contains("output stopped arriving") })
                // What arrived of each launch's output: the cold one's first write only.
                func log(_ sample: Sample) throws -> String {
                    try String(
                        contentsOf: result.folder.appendingPathComponent(try #require(sample.logPath)), encoding: .utf8)
                }
                let (coldLog, warmLog) = (try log(cold), try log(warm))
                #expect(coldLog.split(separator: "\n").count == 1 && !coldLog.contains("done"), "\(coldLog)")
                #expect(warmLog.contains("[launchbench] done"), "\(warmLog)")
            }
        }

        /// The phone relays each launch's output after its termination notice (the two come separately, in no
        /// promised order): every marker still counts.
        @Test func outputRelayedAfterTheTerminationNoticeStillCounts() async throws {
            try await EndToEnd.withDevices([("iPhone15,4", "17.5")]) { devices in
                devices[0].processControlLateOutputs = 2
                let result = try await Self.run(
                    EndToEnd.profile(), launcher: .processControl, devices: devices, name: "Late")
                let samples = try result.samples
                #expect(samples.count == 2)
                for sample in samples {
                    let label = "\(sample.kind): \(sample.status) \(sample.message ?? "") \(sample.warnings)"
                    #expect(sample.status == .ok && sample.exitStatus == 0, "\(label)")
                    for metric in [Metric.mainMs, .didFinishLaunchingMs, .firstFrameMs] {
                        #expect(sample[metric] != nil, "\(metric) \(label)")
                    }
                }
                #expect(devices[0].processControlLateOutputs == 0)
            }
        }

        /// Without the Developer Disk Image the instruments service is refused: an explicit `processcontrol` skips
        /// the device naming the image; `auto` falls back to debugserver and says so, and lockdown, whose
        /// debugserver is on the same image, refuses that too: each launch is refused naming the image.
        @Test(arguments: [LauncherChoice.auto, .processControl])
        func withoutTheDeveloperDiskImage(launcher: LauncherChoice) async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                devices[0].services.developerDiskImageMounted = false
                let result = try await Self.run(
                    EndToEnd.profile(), launcher: launcher, devices: devices, name: "NoImage", premain: .auto)
                try Self.expectRefusedOrSkipped(
                    result, launcher: launcher, udid: devices[0].udid, naming: ["Developer Disk Image"])
            }
        }
    }
}
