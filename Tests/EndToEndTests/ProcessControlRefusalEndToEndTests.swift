import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import DeviceEmulator
@testable import LaunchEngines

extension RealPymobiledevice3Tests {
    /// Process control as phones answer it, through the real pymobiledevice3: refusals nested under
    /// processcontrol's own error, a launch refused for a moment after the last instance was killed, heartbeats on
    /// the trace, and the two encodings of a clean exit.
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(5)), installed) struct ProcessControlRefusalEndToEndTests {
        static func run(
            _ profile: AppProfile, devices: [EmulatedDevice], name: String, iterations: Int = 1, warm: Int = 1,
            cold: RunPlan.ColdMode = .reinstall
        ) async throws -> RunResult {
            let app = try EndToEnd.makeApp(name, profile: profile)
            var plan = EndToEnd.plan(app, devices: devices, iterations: iterations, warm: warm, cold: cold)
            plan.premain = .kdebug
            plan.launcher = .processControl
            return try await Pymobiledevice3EndToEnd.run(
                plan, driver: try await Pymobiledevice3EndToEnd.driver(selection: .auto), readsKdebug: true)
        }

        /// Each refusal's cause comes from FrontBoard's error two levels under processcontrol's; the message
        /// names the cause and the fix and quotes the outermost and the deepest error. Only the locked phone's
        /// refusal is one that may clear, so only it is tried again (and then named with its attempts).
        @Test(arguments: ["locked", "untrusted"])
        func aNestedRefusalIsNamedWithItsCauseAndFix(fault: String) async throws {
            try await EndToEnd.withDevices([("iPhone15,4", "17.5")]) { devices in
                if fault == "locked" {
                    devices[0].services.isLocked = true
                } else {
                    devices[0].services.trustsAppDevelopers = false
                }
                let result = try await Self.run(EndToEnd.profile(), devices: devices, name: "Nested")
                let samples = try result.samples
                #expect(!samples.isEmpty)
                let (cause, fix, deepest) =
                    fault == "locked"
                    ? ("the phone is locked", "Unlock it", "FBSOpenApplicationErrorDomain code 7 Locked")
                    : (
                        "developer profile is not trusted", "Settings > General > VPN & Device Management",
                        "FBSOpenApplicationErrorDomain code 3 Security"
                    )
                for sample in samples {
                    let message = sample.message ?? ""
                    #expect(sample.status == .launchRefused && sample.launcher == .processControl, "\(message)")
                    #expect(message.contains(cause) && message.contains(fix), "\(message)")
                    #expect(
                        message.contains("com.apple.dt.deviceprocesscontrolservice code 2: Request to launch "),
                        "\(message)")
                    #expect(message.contains(deepest), "\(message)")
                    #expect(sample.launchRetries == (fault == "locked" ? 4 : 0), "\(message)")
                    #expect(message.contains("(5 attempts)") == (fault == "locked"), "\(message)")
                }
                #expect(devices[0].services.launchHistory.isEmpty)
            }
        }

        /// An app the phone does not have: the helper forwards the whole chain of NSErrors pymobiledevice3 decoded
        /// (processcontrol's code 2, FrontBoard's InvalidRequest, NotFound at the bottom) and process control names
        /// the cause and the fix from the deepest one.
        @Test func anUninstalledAppIsNamedFromTheNestedError() async throws {
            try await EndToEnd.withDevices([("iPhone15,4", "17.5")]) { devices in
                let helper = try await KdebugTapProcessControlTests.Helper(device: devices[0])
                _ = try await helper.next(type: "ready")
                let sent = Locked<[Data]>([])
                let control = KdebugTapProcessControl(udid: devices[0].udid) { data in sent.withLock { $0.append(data) }
                }
                let launch = Task {
                    try await control.launch(
                        LaunchRequest(bundleID: "com.example.absent", arguments: [], environment: []))
                }
                let deadline = ContinuousClock.now + .seconds(10)
                while sent.current.isEmpty && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
                let command = try #require(sent.current.first)
                try helper.child.send(line: String(decoding: command, as: UTF8.self))
                let refused = try await helper.next(type: "refused", id: 1)
                let chain = try #require(refused["errors"] as? [[String: Any]], "\(refused)")
                #expect(
                    chain.map { "\($0["domain"] ?? "") \(KdebugTapProcessControlTests.Helper.int($0, "code") ?? -1)" }
                        == [
                            "com.apple.dt.deviceprocesscontrolservice 2", "FBSOpenApplicationServiceErrorDomain 4",
                            "FBSOpenApplicationErrorDomain 4",
                        ], "\(chain)")
                #expect(control.handle(refused))
                let error = await launch.result
                guard case .failure(let failure as ProcessControlError) = error else {
                    Issue.record("launched: \(error)")
                    return
                }
                #expect(failure.refusal?.cause == .notInstalled)
                #expect(
                    failure.message.contains("the app is not installed") && failure.message.contains("reinstall it"))
                #expect(failure.message.contains("com.apple.dt.deviceprocesscontrolservice code 2: Request to launch"))
                #expect(failure.message.contains("FBSOpenApplicationErrorDomain code 4 NotFound: Application info"))
                #expect(try await helper.stop() == 0)
            }
        }

        /// Every warm launch follows the kill of the last instance; the phone refuses each for a moment ("already
        /// running"). Each is tried again until accepted: the series is all `ok`, with the retries counted.
        @Test func aWarmSeriesThroughABriefRefusalAfterEveryKillIsAllOk() async throws {
            try await EndToEnd.withDevices([("iPhone15,4", "17.5")]) { devices in
                devices[0].processControlRefusalAfterKill = .milliseconds(700)
                var profile = EndToEnd.profile()
                profile.exitAfterDone = false  // launchbench kills each launch
                let result = try await Self.run(profile, devices: devices, name: "Refused", warm: 3)
                let samples = try result.samples
                #expect(samples.count == 4)
                for sample in samples {
                    let label = "\(sample.kind) \(sample.launchIndex): \(sample.message ?? "") \(sample.warnings)"
                    #expect(sample.status == .ok, "\(label)")
                    #expect(sample[.totalPremainMs] != nil && sample[.firstFrameMs] != nil, "\(label)")
                    #expect(sample.launchRetries == (sample.kind == .cold ? 0 : 2), "\(label)")
                }
                let onDisk = try EndToEnd.samplesOnDisk(result.folder)
                #expect(onDisk.map(\.launchRetries) == samples.map(\.launchRetries))
                #expect(devices[0].services.launchHistory.count == 4)
            }
        }

        /// The phone sends an empty message on the trace every 20 ms: a heartbeat, not a hang-up. One helper
        /// serves the whole run (no `kdebug-tap-2.log`) and every launch has its phases; the helper asked for no
        /// heartbeats (`nohb`).
        @Test func aTraceWithHeartbeatsKeepsOneHelperAndPhasesOnEveryLaunch() async throws {
            try await EndToEnd.withDevices([("iPhone15,4", "17.5")]) { devices in
                let taps = devices[0].serviceState(KdebugTaps.self) { KdebugTaps() }
                taps.heartbeatInterval = .milliseconds(20)
                defer { taps.heartbeatInterval = nil }
                let result = try await Self.run(EndToEnd.profile(), devices: devices, name: "Heartbeat", iterations: 2)
                let samples = try result.samples
                #expect(samples.count == 4)
                for sample in samples {
                    let label = "\(sample.kind): \(sample.message ?? "") \(sample.warnings)"
                    #expect(sample.status == .ok && sample.premainSource == .kdebug, "\(label)")
                    #expect(sample[.totalPremainMs] != nil, "\(label)")
                }
                let logs = result.folder.appendingPathComponent("logs/\(devices[0].udid)")
                let names = try FileManager.default.contentsOfDirectory(atPath: logs.path)
                #expect(names.filter { $0.hasPrefix("kdebug-tap") } == ["kdebug-tap.log"], "\(names)")
                #expect(taps.askedNoHeartbeats == true)
            }
        }

        /// A clean exit's termination notice may carry signal 0 instead of nil: it is an exit, not a crash.
        @Test(arguments: [0, nil] as [Int?])
        func aCleanExitWithSignalZeroOrNilIsOk(signal: Int?) async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                devices[0].processControlCleanExitSignal = signal
                let result = try await Self.run(EndToEnd.profile(), devices: devices, name: "CleanExit")
                let samples = try result.samples
                #expect(samples.count == 2)
                for sample in samples {
                    let label = "\(sample.kind): \(sample.status) \(sample.message ?? "")"
                    #expect(sample.status == .ok && sample.exitStatus == 0 && sample.signal == nil, "\(label)")
                }
            }
        }
    }
}
