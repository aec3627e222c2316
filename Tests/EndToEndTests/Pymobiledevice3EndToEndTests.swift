import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice
import TestSupport
import Testing

/// Every suite that runs the real pymobiledevice3, in two lanes of one test at a time: each test starts Python
/// sidecars (and on iOS 17+ a userspace TCP/IP stack), and a 2-core CI machine running them all at once
/// starved the other tests; in one lane, though, they were the whole suite's critical path (a kdebug test that
/// takes 8 s alone took 80 s in the crowd). This lane: kdebug and the sidecar; `RealPymobiledevice3TunnelTests`:
/// the iOS 17+ tunnel and the demo. CI installs pymobiledevice3 (`Scripts/test`), so none of them skips there.
@Suite(.tags(.emulator, .subprocess), .serialized) enum RealPymobiledevice3Tests {
    /// On the suites that cannot run without it.
    static let installed = ConditionTrait.enabled(
        if: Pymobiledevice3EndToEnd.executable != nil,
        "pymobiledevice3 is not installed: run Scripts/bootstrap --with-pymobiledevice3 (or set LAUNCHBENCH_PYMOBILEDEVICE3)"
    )
}

/// The second lane of `RealPymobiledevice3Tests`: the suites that go through pymobiledevice3's iOS 17+ tunnel.
@Suite(.tags(.emulator, .subprocess), .serialized) enum RealPymobiledevice3TunnelTests {
    /// On the suites that cannot run without it.
    static let installed = RealPymobiledevice3Tests.installed
}

extension RealPymobiledevice3Tests {
    /// `run --engine pymobiledevice3` end to end: the real pymobiledevice3 (its `debugserver start-server`
    /// sidecar, pointed at the emulated lab with PYMOBILEDEVICE3_USBMUX) forwards the emulated iOS 14–16
    /// devices' DVTSecureSocketProxy debugserver (TLS, as a real device) to 127.0.0.1, and our GDB loop
    /// launches through it. Skipped when pymobiledevice3 is not installed (`Scripts/bootstrap --with-pymobiledevice3`).
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(5)), installed) struct Pymobiledevice3EndToEndTests {
        @Test func samplesEqualTheRawLogsAndEnvironmentValuesArriveIntact() async throws {
            try await EndToEnd.withDevices([("iPhone12,1", "14.8"), ("iPhone14,5", "16.7")]) { devices in
                let app = try EndToEnd.makeApp("Forwarded", profile: EndToEnd.profile())
                let environment = [
                    EnvironmentVariable(name: "EQUATION", value: "a=b=c"),
                    EnvironmentVariable(name: "SENTENCE", value: "  spaces in  the middle and at the end  "),
                    EnvironmentVariable(name: "UNICODE", value: "Grüße, 東京, emoji 🚀"),
                    EnvironmentVariable(name: "EMPTY", value: ""),
                ]
                let (result, driver) = try await Pymobiledevice3EndToEnd.run(
                    EndToEnd.plan(app, devices: devices, iterations: 2, environment: environment))
                let samples = try result.samples
                #expect(samples.count == 8)
                #expect(samples.allSatisfy { $0.status == .ok }, "\(samples.map { $0.message ?? "" })")
                try EndToEnd.expectValuesAsPrinted(result)
                #expect(samples.allSatisfy { $0[.mainMs] != nil && $0[.firstFrameMs] != nil })
                for device in devices {
                    let received = device.services.launchHistory.filter { $0.bundleID == app.bundleID }
                    #expect(received.count == 4)
                    for launch in received {
                        for variable in environment { #expect(launch.environment.contains(variable)) }
                    }
                    let outcome = try #require(result.manifest.outcome(of: device.udid))
                    #expect(outcome.engine == "pymobiledevice3")
                    // The sidecar's log sits next to the launch logs.
                    let log = result.folder.appendingPathComponent("logs/\(device.udid)/pymobiledevice3.log")
                    let text = try String(contentsOf: log, encoding: .utf8)
                    #expect(text.contains("start-server --udid \(device.udid) --local-port"))
                    // pymobiledevice3's own lines: it forwarded one connection per launch.
                    #expect(text.components(separatedBy: "INFO connection established from").count - 1 == 4)
                }
                #expect(await driver.pymobiledevice3?.runningProcessIdentifiers.isEmpty == true)
            }
        }

        @Test func aCrashAndAHangAreRecordedAsThroughLockdown() async throws {
            try await EndToEnd.withDevices([("iPhone12,1", "14.8")]) { devices in
                let crash = Faults(crash: CrashFault(when: LaunchSelector(launches: [2]), after: "main", signal: 11))
                let crashing = try EndToEnd.makeApp("ForwardedCrash", profile: EndToEnd.profile(faults: crash))
                let crashed = try await Pymobiledevice3EndToEnd.run(
                    EndToEnd.plan(crashing, devices: devices, iterations: 2)
                ).0.samples
                #expect(crashed.map(\.status) == [.ok, .crashed, .ok, .ok], "\(crashed.map { $0.message ?? "" })")
                #expect(crashed[1].signal == 11)

                let hang = Faults(hang: PointFault(when: LaunchSelector(launches: [1]), after: "main"))
                let hanging = try EndToEnd.makeApp("ForwardedHang", profile: EndToEnd.profile(faults: hang))
                let started = ContinuousClock.now
                let hung = try await Pymobiledevice3EndToEnd.run(
                    EndToEnd.plan(hanging, devices: devices, iterations: 1, timeout: .seconds(4))
                )
                .0.samples
                #expect(hung.map(\.status) == [.timeout, .ok], "\(hung.map { $0.message ?? "" })")
                #expect(hung[1][.firstFrameMs] != nil)
                #expect(ContinuousClock.now - started < .seconds(120))
            }
        }

        /// Through lockdown (14.8) and through the userspace tunnel (17.5).
        @Test(arguments: [("iPhone12,1", "14.8"), ("iPhone15,4", "17.5")])
        func aSidecarKilledMidLaunchIsARecordedFailureAndTheNextLaunchStartsANewOne(
            model: String, ios: String
        ) async throws {
            try await EndToEnd.withDevices([(model, ios)]) { devices in
                // The first launch hangs (until a 60 s timeout nobody waits for): the sidecar is killed during it.
                let hang = Faults(hang: PointFault(when: LaunchSelector(launches: [1]), after: "main"))
                let app = try EndToEnd.makeApp("ForwarderKilled", profile: EndToEnd.profile(faults: hang))
                let driver = try await Pymobiledevice3EndToEnd.driver()
                let killer = Task {
                    // Wait for the sidecar, then for the launch to be under way, then kill -9 the sidecar.
                    for _ in 0..<600 {
                        if let pid = await driver.pymobiledevice3?.runningProcessIdentifiers.first,
                            !devices[0].services.launchHistory.isEmpty
                        {
                            try await Task.sleep(for: .milliseconds(500))
                            kill(pid, SIGKILL)
                            return pid
                        }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    return Int32(0)
                }
                let started = ContinuousClock.now
                let result = try await Pymobiledevice3EndToEnd.run(
                    EndToEnd.plan(app, devices: devices, iterations: 1, warm: 1, timeout: .seconds(60)), driver: driver)
                let samples = try result.samples
                let killed = try await killer.value
                #expect(killed != 0)
                #expect(ContinuousClock.now - started < .seconds(50), "the dead sidecar must not be waited out")
                #expect(
                    samples.map(\.status) == [.launchRefused, .ok], "\(samples.map { $0.message ?? "" })")
                let message = samples[0].message ?? ""
                #expect(message.contains("pymobiledevice3"))
                #expect(message.contains("next launch starts a new one"))
                #expect(kill(killed, 0) != 0)
            }
        }
    }
}

/// The built `launchbench run --engine pymobiledevice3` against a private lab: Ctrl-C leaves no sidecar behind.
@Suite(
    .tags(.emulator, .pymobiledevice3, .subprocess),
    .timeLimit(.minutes(5)),
    .enabled(
        if: Pymobiledevice3EndToEnd.executable != nil,
        "pymobiledevice3 is not installed: run Scripts/bootstrap --with-pymobiledevice3 (or set LAUNCHBENCH_PYMOBILEDEVICE3)"
    ))
struct Pymobiledevice3CommandTests {
    @Test func ctrlCStopsTheSidecarAndKeepsTheSamples() async throws {
        let executable = try #require(Pymobiledevice3EndToEnd.executable)
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "15.8")) { lab in
            let app = try EndToEnd.makeApp("SidecarSigint", profile: EndToEnd.profile())
            let output = EndToEnd.temporaryFolder("pmd3-sigint").appendingPathComponent("results")
            let child = try LaunchbenchCLI.start(
                [
                    "run", app.url.path, "--engine", "pymobiledevice3", "--launcher", "debugserver", "--iterations",
                    "500", "--output", output.path,
                ],
                environment: [
                    "USBMUXD_SOCKET_ADDRESS": lab.usbmuxdSocketAddress, "NO_COLOR": "1",
                    "LAUNCHBENCH_PYMOBILEDEVICE3": executable,
                ])
            try await child.waitForOutput("two launches ok", timeout: .seconds(180)) {
                $0.standardError.components(separatedBy: " ok: ").count > 2
            }
            child.send(signal: SIGINT)
            let status = try await child.waitForExit(timeout: .seconds(60))
            #expect(status == 130, "stderr: \(child.standardError)")
            #expect(try EndToEnd.samplesOnDisk(output).count >= 2)
            let log = try String(
                contentsOf: output.appendingPathComponent("logs/\(lab.devices[0].udid)/pymobiledevice3.log"),
                encoding: .utf8)
            let command = try #require(log.split(separator: "\n").first { $0.hasPrefix("$ ") })
            let port = try #require(command.split(separator: " ").last)
            #expect(await Self.noProcessRuns(with: "--local-port\u{0}\(port)"), "a sidecar on port \(port) survived")
        }
    }

    /// No process's argv (from /proc, NUL-separated) contains `fragment` (Linux; true elsewhere).
    static func noProcessRuns(with fragment: String) async -> Bool {
        for _ in 0..<50 {
            let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { Int($0) != nil } ?? []
            let alive = pids.contains { pid in
                guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
                return String(decoding: data, as: UTF8.self).contains(fragment)
            }
            if !alive { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }
}

/// The real pymobiledevice3 (the project's .venv-pmd3, LAUNCHBENCH_PYMOBILEDEVICE3 or PATH) over the shared lab.
enum Pymobiledevice3EndToEnd {
    static let repository = PackageRoot.url

    static let executable = Pymobiledevice3Locator.find(currentDirectory: repository.path, executablePath: nil)

    /// The engines a test run composes, as `run` does, launching through pymobiledevice3 (every device, or with
    /// `.auto` the iOS 17+ ones, as `run --engine auto` on Linux), pointed at the shared lab; `tunneld` serves
    /// iOS 17.0–17.3 (as `--tunneld`).
    static func driver(
        selection: EngineSelection = .forced(.pymobiledevice3), tunneld: String? = nil, pageFaults: Bool = false
    ) async throws -> ComposedEngines {
        let address = try await SharedTestLab.address()
        let executable = try #require(executable)
        // The shared lab listens on a unix socket (`UNIX:/path`).
        return ComposedEngines(
            EngineSetup(
                selection: selection, host: EngineHost(isMacOS: false, pymobiledevice3: executable),
                usbmuxd: .unix(path: String(address.dropFirst("UNIX:".count))), tunneld: tunneld,
                startTimeout: .seconds(90), pageFaults: pageFaults))
    }

    /// launchbench's kdebug helper on this pymobiledevice3, pointed at the shared lab.
    static func kdebugTracer(logFolder: URL) async throws -> Pymobiledevice3KdebugTracer {
        try #require(try await driver(selection: .auto).setup.pymobiledevice3).tracer(logs: logFolder)
    }

    /// Runs `plan` with sidecar logs in the results folder, and stops the sidecars at the end.
    static func run(_ plan: RunPlan) async throws -> (RunResult, ComposedEngines) {
        let driver = try await driver()
        return (try await run(plan, driver: driver), driver)
    }

    /// Selects the plan's devices, composes the engines with their logs in the results folder, runs, and stops
    /// the sidecars at the end.
    /// - Parameter readsKdebug: whether the runner reads kdebug (`--premain`) through pymobiledevice3 too.
    static func run(_ plan: RunPlan, driver: ComposedEngines, readsKdebug: Bool = false) async throws -> RunResult {
        let folder = EndToEnd.temporaryFolder("pmd3")
        let base = MobileDeviceDriver()
        let devices = try await BenchmarkRunner.selectDevices(for: plan, from: base, reporter: SilentRunReporter())
            .devices
        let engines = driver.compose(base: base, devices: devices, logs: folder.appendingPathComponent("logs"))
        let runner = BenchmarkRunner(
            driver: engines.driver, router: engines.router, kdebug: readsKdebug ? engines.kdebug : nil)
        do {
            let result = try await runner.run(plan, devices: devices, store: try ResultsStore(folder: folder))
            await engines.shutdown()
            return result
        } catch {
            await engines.shutdown()
            throw error
        }
    }
}

/// A test's engine setup and, once a run composed them, that run's engines (for the tests that watch or kill
/// its sidecars).
final class ComposedEngines: Sendable {
    let setup: EngineSetup
    private let composed = Locked<RunEngines?>(nil)

    init(_ setup: EngineSetup) {
        self.setup = setup
    }

    /// The sidecars of the run that composed the engines; `nil` before it did.
    var pymobiledevice3: Pymobiledevice3Engine? { composed.current?.driver.pymobiledevice3 }

    func compose(base: MobileDeviceDriver, devices: [DeviceInfo], logs: URL) -> RunEngines {
        let engines = setup.engines(base: base, devices: devices, logs: logs)
        composed.withLock { $0 = engines }
        return engines
    }
}
