import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice
import TestSupport
import Testing

extension RealPymobiledevice3Tests {
    /// Pre-main phases from dyld's kdebug events, end to end: launchbench's helper drives the real, pinned
    /// pymobiledevice3's core profile session against the emulated phones' instruments service (lockdown with
    /// TLS on iOS 14–16, the userspace tunnel on 17.4+), and the core measures each launch from the raw
    /// records. CI installs pymobiledevice3 (`Scripts/test`), so these never skip there.
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(5)), installed) struct KdebugEndToEndTests {
        @Test func phasesComeFromKdebugAndAgreeWithDyldsStatisticsOnIOS14() async throws {
            try await EndToEnd.withDevices([("iPhone12,1", "14.8"), ("iPhone14,5", "16.7"), ("iPhone15,4", "17.5")]) {
                devices in
                let app = try EndToEnd.makeApp("Traced", profile: EndToEnd.profile())
                // The override makes iOS 14's dyld print its statistics too, to check kdebug against.
                var plan = EndToEnd.plan(
                    app, devices: devices, iterations: 2,
                    environment: [EnvironmentVariable(name: "DYLD_INSERT_LIBRARIES", value: "/usr/lib/libnone.dylib")])
                plan.premain = .kdebug
                let result = try await Pymobiledevice3EndToEnd.run(
                    plan, driver: try await Pymobiledevice3EndToEnd.driver(selection: .auto), readsKdebug: true)
                let samples = try result.samples
                #expect(samples.count == 12)
                for sample in samples {
                    let label = "\(sample.osVersion) #\(sample.iteration) \(sample.kind): \(sample.warnings)"
                    #expect(sample.status == .ok, "\(label) \(sample.message ?? "")")
                    #expect(sample.premainSource == .kdebug, "\(label)")
                    // The override puts iOS 14's dyld on its dyld2 path, whose phase timers end at once: kdebug
                    // leaves those phases empty (never 0) and says why; dyld4 times them.
                    let dyld4 = sample.osVersion != "14.8"
                    #expect(sample[.totalPremainMs] != nil, "\(label)")
                    for metric in [Metric.dylibLoadingMs, .rebaseBindingMs, .initializerMs] {
                        #expect((sample[metric] != nil) == dyld4, "\(metric) \(label)")
                    }
                    #expect(dyld4 || sample.warnings.contains { $0.contains("A dyld2 launch") }, "\(label)")
                    // No OBJC_MAP for the launch's images (libobjc maps them inside libSystem's initializer):
                    // empty, with the note.
                    #expect(sample[.objcSetupMs] == nil, "\(label)")
                    #expect(sample.warnings.contains { $0.contains("No OBJC_MAP") }, "\(label)")
                    #expect(sample[.processCreationMs] != nil, "\(label)")
                    // The first launch after the reinstall builds dyld's launch closure; the warm one does not
                    // (the dyld2 path builds none).
                    #expect((sample[.closureBuildMs] != nil) == (sample.kind == .cold && dyld4), "\(label)")
                    #expect(!sample.warnings.contains { $0.contains("disagree") }, "\(label)")
                    if dyld4 {
                        #expect(
                            sample.initializers?.contains { $0.image == "libSystem.B.dylib" } == true, "\(label)")
                    }
                    let trace = result.folder.appendingPathComponent(
                        ResultsStore.tracePath(
                            udid: sample.deviceUDID, iteration: sample.iteration, kind: sample.kind,
                            launchIndex: sample.launchIndex))
                    try Self.expectChromeTrace(trace)
                    if sample.iteration == 1 && sample.kind == .cold {
                        try await Self.expectRawKdebug(of: sample, in: result.folder, app: "Traced")
                    }
                }
                for device in devices {
                    #expect(result.manifest.outcome(of: device.udid)?.premainSource == .kdebug)
                    let log = result.folder.appendingPathComponent("logs/\(device.udid)/kdebug-tap.log")
                    // One session per device for the whole run.
                    let text = try String(contentsOf: log, encoding: .utf8)
                    #expect(text.components(separatedBy: "kdebug_tap.py --udid").count - 1 == 1)
                }
            }
        }

        /// `auto` on iOS 14 with an override variable takes dyld's printed statistics and checks them against
        /// kdebug on every launch: the dyld2 path times none of the four phases, so the note says nothing could
        /// be compared, and which phases kdebug does not time, instead of claiming agreement. The session runs, so
        /// the app starts through process control, and dyld's statistics come back in its output events.
        @Test func autoChecksDyldsStatisticsAgainstKdebugOnIOS14() async throws {
            try await EndToEnd.withDevices([("iPhone12,1", "14.8")]) { devices in
                let app = try EndToEnd.makeApp("CrossChecked", profile: EndToEnd.profile())
                let plan = EndToEnd.plan(
                    app, devices: devices, iterations: 2,
                    environment: [EnvironmentVariable(name: "DYLD_INSERT_LIBRARIES", value: "/usr/lib/libnone.dylib")])
                let result = try await Pymobiledevice3EndToEnd.run(
                    plan, driver: try await Pymobiledevice3EndToEnd.driver(selection: .auto), readsKdebug: true)
                let samples = try result.samples
                #expect(samples.allSatisfy { $0.status == .ok && $0.premainSource == .dyldStatistics })
                #expect(samples.allSatisfy { $0[.processCreationMs] == nil && $0[.dylibLoadingMs] != nil })
                #expect(samples.allSatisfy { $0.launcher == .processControl })
                let outcome = try #require(result.manifest.outcome(of: devices[0].udid))
                #expect(outcome.premainSource == .dyldStatistics && outcome.launcher == .processControl)
                #expect(!outcome.notes.contains { $0.contains("without dyld's printed statistics") })
                #expect(
                    outcome.notes.contains {
                        $0.hasPrefix("kdebug cross-check: none of 4 launches could be compared")
                            && $0.contains("initializers")
                    }, "\(outcome.notes)")
            }
        }

        /// `--premain kdebug` on a phone without the instruments service launchbench reads (iOS 12): kdebug was
        /// asked for by name and cannot be had, so the device is skipped with the cause and the fix (issue 43)
        /// rather than measured from dyld's printed statistics under a flag that said kdebug.
        @Test func withoutAnInstrumentsServiceAnExplicitKdebugSkipsTheDevice() async throws {
            try await EndToEnd.withDevices([("iPhone6,1", "12.5.7")]) { devices in
                let app = try EndToEnd.makeApp("NoInstruments", profile: EndToEnd.profile())
                var plan = EndToEnd.plan(app, devices: devices, iterations: 1)
                plan.premain = .kdebug
                let result = try await Pymobiledevice3EndToEnd.run(
                    plan, driver: try await Pymobiledevice3EndToEnd.driver(selection: .auto), readsKdebug: true)
                #expect(try result.samples.isEmpty)
                let outcome = try #require(result.manifest.outcome(of: devices[0].udid))
                #expect(outcome.outcome == .skipped)
                #expect(
                    outcome.notes.contains {
                        $0.contains("(--premain kdebug)") && $0.contains("does not offer the instruments service")
                            && $0.contains("--premain auto")
                    }, "\(outcome.notes)")
            }
        }

        /// Instruments or Xcode recording on the phone owns kperf: under `--premain auto` the device is measured
        /// without phases, every launch recorded with source `none` and the cause, which its note names too.
        @Test func aSessionAlreadyRecordingIsNamedAndTheRestIsMeasured() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                let other = try await Pymobiledevice3EndToEnd.kdebugTracer(
                    logFolder: EndToEnd.temporaryFolder("kdebug-other"))
                let recording = try await other.startTrace(on: devices[0].info)
                do {
                    let app = try EndToEnd.makeApp("TracedLocked", profile: EndToEnd.profile())
                    let result = try await Pymobiledevice3EndToEnd.run(
                        EndToEnd.plan(app, devices: devices, iterations: 1),
                        driver: try await Pymobiledevice3EndToEnd.driver(selection: .auto),
                        readsKdebug: true)
                    let samples = try result.samples
                    await recording.stop()
                    #expect(samples.allSatisfy { $0.status == .ok && $0.premainSource == .notMeasured })
                    #expect(
                        samples.allSatisfy { sample in
                            sample.warnings.contains { $0.contains("kperf belongs to another session") }
                        })
                    #expect(samples.allSatisfy { $0[.mainMs] != nil })
                    let outcome = try #require(result.manifest.outcome(of: devices[0].udid))
                    #expect(outcome.premainSource == .notMeasured)
                    #expect(
                        outcome.notes.contains { $0.contains("kperf belongs to another session") }, "\(outcome.notes)")
                } catch {
                    await recording.stop()
                    throw error
                }
            }
        }

        /// The emulated phone's processcontrol through the real CLI: `developer dvt launch BUNDLE --env K=V`
        /// gets a pid and the phone receives the environment; `developer dvt kill PID` is answered.
        @Test func theRealCLILaunchesAndKillsThroughProcessControl() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                let device = devices[0]
                let app = try EndToEnd.makeApp("DvtLaunched", profile: EndToEnd.profile())
                try await MobileDeviceDriver().install(app, on: device.udid, timeout: .seconds(60))
                let address = try await SharedTestLab.address()
                var environment = try Pymobiledevice3USBMux.environment(
                    for: .unix(path: String(address.dropFirst("UNIX:".count))))
                environment["NO_COLOR"] = "1"
                let executable = try #require(Pymobiledevice3EndToEnd.executable)
                let launch = try ChildProcess(
                    executable: executable,
                    arguments: [
                        "developer", "dvt", "launch", app.bundleID, "--env", "GREETING=hello world", "--udid",
                        device.udid,
                    ],
                    environment: environment)
                #expect(try await launch.waitForExit(timeout: .seconds(60)) == 0, "\(launch.standardError)")
                let line = try #require(
                    launch.standardOutput.split(separator: "\n").first { $0.contains("Process launched with pid ") },
                    "stdout: \(launch.standardOutput)")
                let pid = try #require(line.split(separator: " ").last.map(String.init))
                let received = try #require(device.services.launchHistory.last { $0.bundleID == app.bundleID })
                #expect(received.environment.contains(EnvironmentVariable(name: "GREETING", value: "hello world")))
                let kill = try ChildProcess(
                    executable: executable, arguments: ["developer", "dvt", "kill", pid, "--udid", device.udid],
                    environment: environment)
                #expect(try await kill.waitForExit(timeout: .seconds(60)) == 0, "\(kill.standardError)")
            }
        }

        /// The fields the Chrome trace-event format documents for complete ("X"), instant ("i"), counter ("C")
        /// and metadata ("M") events; the process and its main thread are named.
        static func expectChromeTrace(_ url: URL) throws {
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
            let events = try #require(object?["traceEvents"] as? [[String: Any]])
            #expect(events.count > 5)
            for event in events {
                #expect(event["name"] is String && event["pid"] is Int && event["tid"] is Int)
                #expect(event["ts"] is Double || event["ts"] is Int)
                switch event["ph"] as? String {
                case "X": #expect(event["dur"] is Double || event["dur"] is Int)
                case "i": #expect(event["s"] is String)
                case "M": #expect((event["args"] as? [String: Any])?["name"] is String)
                case "C": #expect((event["args"] as? [String: Any])?["page-ins"] is Int)
                default: Issue.record("unexpected phase \(event["ph"] ?? "none")")
                }
            }
            #expect(events.contains { $0["name"] as? String == "process_name" && $0["ph"] as? String == "M" })
            #expect(events.contains { $0["name"] as? String == "main" })
            #expect(events.contains { $0["name"] as? String == "first frame" })
        }
    }
}
