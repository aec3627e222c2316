import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import DeviceEmulator

/// processcontrol's own messages, read by the real pymobiledevice3 11.45.0 over lockdown with service TLS: the
/// app's writes as output events (LaunchProbe's markers, dyld's prints), its end as a termination notice
/// (exit status, or the signal that killed it), and the pid for a bundle id while it runs.
@Suite(
    .timeLimit(.minutes(5)),
    .enabled(
        if: ProcessControlClientScript.python != nil,
        "pymobiledevice3 is not installed: run Scripts/bootstrap --with-pymobiledevice3"))
struct ProcessControlEventsTests {
    typealias Client = ProcessControlClientScript

    /// Installs the sample app (with `faults`, running on after `done` unless `exitsAfterDone`) on one emulated
    /// phone of `ios` and runs `body`.
    static func withInstalledApp(
        ios: String, faults: Faults? = nil, exitsAfterDone: Bool = true,
        _ body: (EmulatedLab, EmulatedDevice, InstalledApp) async throws -> Void
    ) async throws {
        let spec = EmulatedDeviceSpec.numbered(610, productType: "iPhone14,5", osVersion: ios)
        try await PrivateLab.with(devices: [spec]) { lab in
            let device = try #require(lab.device(udid: spec.udid))
            var app = try AppBundleLoader.load(FixturePaths.sampleApp)
            app.profile.faults = faults
            app.profile.exitAfterDone = exitsAfterDone
            device.services.install(app)
            try await body(lab, device, app)
        }
    }

    static func run(
        _ mode: String, _ lab: EmulatedLab, _ device: EmulatedDevice, _ app: InstalledApp,
        environment: [String: String] = [:]
    ) async throws -> [[String: Any]] {
        let (lines, stderr) = try await Client.run(
            mode: mode, udid: device.udid, bundleID: app.bundleID, usbmux: try #require(lab.socketPath),
            environment: environment)
        #expect(!stderr.contains("exit status"), "\(stderr)")
        return lines
    }

    /// What the plan of launch `number` writes, as the device plans it.
    static func plannedOutput(
        _ device: EmulatedDevice, _ app: InstalledApp, environment: [String: String] = [:],
        kind: LaunchKindName = .cold, number: Int = 1
    ) throws -> LaunchPlan {
        let planner = LaunchPlanner(
            productType: device.spec.productType, osVersion: try #require(device.osVersion), udid: device.udid,
            labSeed: 0)
        return planner.plan(app: app, environment: environment, kind: kind, launchNumber: number)
    }

    static func output(of pid: Int, in lines: [[String: Any]]) -> String {
        lines.filter { $0["type"] as? String == "output" && Self.int($0, "pid") == pid }.compactMap {
            $0["text"] as? String
        }.joined()
    }

    /// A number of a JSON line (Foundation on Linux reads `0` as an NSNumber that `as? Int` refuses).
    static func int(_ object: [String: Any]?, _ key: String) -> Int? {
        (object?[key] as? NSNumber)?.intValue
    }

    static func terminations(_ lines: [[String: Any]]) -> [[String: Any]] {
        lines.filter { $0["type"] as? String == "terminated" }
    }

    @Test func anAppThatExitsSendsItsWritesInOrderThenItsExitStatus() async throws {
        try await Self.withInstalledApp(ios: "16.7") { lab, device, app in
            let lines = try await Self.run("wait", lab, device, app, environment: ["GREETING": "hello world"])
            let pid = try #require(Self.int(lines.first { $0["type"] as? String == "launched" }, "pid"))
            let plan = try Self.plannedOutput(device, app)
            #expect(pid == plan.pid)
            // Every write, in order, nothing else: the markers, then `done`.
            #expect(Self.output(of: pid, in: lines) == String(decoding: plan.allOutput, as: UTF8.self))
            #expect(Self.output(of: pid, in: lines).contains("[launchbench] mark=firstFrame t="))
            let ended = Self.terminations(lines)
            #expect(ended.count == 1)
            #expect(Self.int(ended.first, "pid") == pid)
            #expect(Self.int(ended.first, "exit_code") == 0)
            #expect(ended.first?["signal"] is NSNull)
            let received = try #require(device.services.launchHistory.last)
            #expect(received.environment == [EnvironmentVariable(name: "GREETING", value: "hello world")])
            #expect(received.arguments.suffix(2) == ["-launchbench", "yes"])
            // The device was busy with the process from its launch to its exit.
            #expect(device.services.activityHistory.filter { $0.kind == .launch }.count == 1)
        }
    }

    /// dyld's printed statistics reach the client as the app's output too (iOS 14 with an override variable).
    @Test func dyldsPrintedStatisticsArriveAsOutput() async throws {
        try await Self.withInstalledApp(ios: "14.8") { lab, device, app in
            let environment = ["DYLD_PRINT_STATISTICS": "1", "DYLD_INSERT_LIBRARIES": "/usr/lib/libnone.dylib"]
            let lines = try await Self.run("wait", lab, device, app, environment: environment)
            let pid = try #require(Self.int(lines.first { $0["type"] as? String == "launched" }, "pid"))
            let text = Self.output(of: pid, in: lines)
            #expect(text.hasPrefix("Total pre-main time: "), "\(text)")
            #expect(
                text
                    == String(
                        decoding: try Self.plannedOutput(device, app, environment: environment).allOutput, as: UTF8.self
                    ))
        }
    }

    /// With no debugger to hold it stopped, a crash ends the process: the notice carries the signal and no
    /// exit status, and nothing the app would have written after it arrives.
    @Test func aCrashEndsWithItsSignal() async throws {
        let crash = Faults(crash: CrashFault(when: LaunchSelector(launches: [1]), after: "main", signal: 6))
        try await Self.withInstalledApp(ios: "16.7", faults: crash) { lab, device, app in
            let lines = try await Self.run("wait", lab, device, app)
            let pid = try #require(Self.int(lines.first { $0["type"] as? String == "launched" }, "pid"))
            let ended = try #require(Self.terminations(lines).first)
            #expect(Self.int(ended, "pid") == pid)
            #expect(Self.int(ended, "signal") == 6)
            #expect(ended["exit_code"] is NSNull)
            let text = Self.output(of: pid, in: lines)
            #expect(text.contains("mark=main"))
            #expect(!text.contains("mark=didFinishLaunching") && !text.contains("[launchbench] done"))
        }
    }

    /// An app that runs on is found by its bundle id, and SIGKILL ends it (the notice says so); then no
    /// process runs for the bundle.
    @Test func aRunningAppIsFoundByBundleAndKilled() async throws {
        try await Self.withInstalledApp(ios: "16.7", exitsAfterDone: false) { lab, device, app in
            let lines = try await Self.run("kill", lab, device, app)
            let pid = try #require(Self.int(lines.first { $0["type"] as? String == "launched" }, "pid"))
            let found = lines.filter { $0["type"] as? String == "pid_for_bundle" }.compactMap { Self.int($0, "pid") }
            #expect(found == [pid, 0])
            let ended = Self.terminations(lines)
            #expect(ended.count == 1)
            #expect(Self.int(ended.first, "signal") == 9)
            #expect(ended.first?["exit_code"] is NSNull)
        }
    }

    /// `KillExisting` ends the running instance (its notice: SIGKILL) before the new one starts; the second
    /// launch is warm.
    @Test func relaunchingKillsTheRunningInstanceFirst() async throws {
        try await Self.withInstalledApp(ios: "16.7", exitsAfterDone: false) { lab, device, app in
            let lines = try await Self.run("relaunch", lab, device, app)
            let pids = lines.filter { $0["type"] as? String == "launched" }.compactMap { Self.int($0, "pid") }
            try #require(pids.count == 2)
            let ended = Self.terminations(lines)
            #expect(ended.compactMap { Self.int($0, "pid") } == pids)
            #expect(ended.allSatisfy { Self.int($0, "signal") == 9 })
            #expect(device.services.launchHistory.map(\.kind) == [.cold, .warm])
            let warm = try Self.plannedOutput(device, app, kind: .warm, number: 2)
            #expect(Self.output(of: pids[1], in: lines) == String(decoding: warm.allOutput, as: UTF8.self))
        }
    }

    /// A launch the phone refuses comes back as an ERROR reply with processcontrol's NSError and FrontBoard's two
    /// nested under it, which pymobiledevice3 decodes whole (`DeviceProcessControlError`, `FrontBoardRefusal` cite
    /// the phones' replies).
    @Test func aLaunchOfAnAppNotInstalledIsAnErrorTheClientReads() async throws {
        try await Self.withInstalledApp(ios: "16.7") { lab, device, app in
            let lines = try await Self.run("absent", lab, device, app)
            let refused = try #require(lines.first { $0["type"] as? String == "refused" })
            #expect(refused["error"] as? String == "DTXNsError", "\(refused)")
            let message = refused["message"] as? String ?? ""
            #expect(message.hasPrefix("com.apple.dt.deviceprocesscontrolservice (code 2,"), "\(refused)")
            #expect(message.contains("'NSLocalizedDescription': 'Request to launch com.example.absent failed.'"))
            let chain = (refused["chain"] as? [[Any]] ?? []).map { level in
                level.map { ($0 as? String) ?? ($0 as? NSNumber).map { "\($0)" } ?? "-" }
            }
            #expect(
                chain.map { Array($0.prefix(3)) } == [
                    ["com.apple.dt.deviceprocesscontrolservice", "2", "-"],
                    ["FBSOpenApplicationServiceErrorDomain", "4", "InvalidRequest"],
                    ["FBSOpenApplicationErrorDomain", "4", "NotFound"],
                ], "\(refused)")
            #expect(chain.last?.last?.contains("returned nil for \"com.example.absent\"") == true, "\(refused)")
        }
    }

    /// A client that does not publish the terminationCallback capability gets the app's output but no
    /// termination notice, of a kill or of an exit (the kill's reply comes after the notice it would have had).
    @Test func aClientWithoutTheTerminationCapabilityHearsNoEnd() async throws {
        try await Self.withInstalledApp(ios: "16.7", exitsAfterDone: false) { lab, device, app in
            let lines = try await Self.run("nocallback", lab, device, app)
            let pid = try #require(Self.int(lines.first { $0["type"] as? String == "launched" }, "pid"))
            #expect(Self.output(of: pid, in: lines).contains("[launchbench] done"))
            #expect(lines.contains { $0["type"] as? String == "killed" }, "\(lines)")
            #expect(Self.terminations(lines).isEmpty, "\(lines)")
            #expect(device.services.activityHistory.contains { $0.bundleID == app.bundleID }, "the kill ended it")
        }
    }
}
