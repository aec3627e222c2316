import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice
import TestSupport
import Testing

extension RealPymobiledevice3TunnelTests {
    /// iOS 17.4+ end to end: `run --engine auto` picks pymobiledevice3, whose `--userspace` tunnel reaches
    /// the emulated phone's CoreDeviceProxy (TLS, CDTunnel, IPv6, the emulator's TCP server, RSD over
    /// HTTP/2 + XPC) and forwards debugproxy to the same debugserver emulation as on iOS ≤ 16. The real,
    /// pinned pymobiledevice3 is the judge; CI installs it (`Scripts/test`), so these never skip there.
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(5)), installed) struct TunnelEndToEndTests {
        @Test func samplesThroughTheTunnelEqualTheEmulatorsTruth() async throws {
            try await EndToEnd.withDevices([("iPhone15,4", "17.5"), ("iPhone17,3", "18.6")]) { devices in
                let app = try EndToEnd.makeApp("Tunnelled", profile: EndToEnd.profile())
                let driver = try await Pymobiledevice3EndToEnd.driver(selection: .auto)
                let result = try await Pymobiledevice3EndToEnd.run(
                    EndToEnd.plan(app, devices: devices, iterations: 3), driver: driver)
                let samples = try result.samples
                #expect(samples.count == 12)
                #expect(samples.allSatisfy { $0.status == .ok }, "\(samples.map { $0.message ?? "" })")
                try EndToEnd.expectValuesAsPrinted(result)
                #expect(samples.allSatisfy { $0[.mainMs] != nil && $0[.firstFrameMs] != nil })
                for device in devices {
                    #expect(device.services.launchHistory.filter { $0.bundleID == app.bundleID }.count == 6)
                    let outcome = try #require(result.manifest.outcome(of: device.udid))
                    #expect(outcome.engine == "pymobiledevice3")
                    let log = try String(
                        contentsOf: result.folder.appendingPathComponent("logs/\(device.udid)/pymobiledevice3.log"),
                        encoding: .utf8)
                    // One sidecar (and one tunnel) per device, one forwarded connection per launch.
                    #expect(log.components(separatedBy: "start-server --udid \(device.udid)").count - 1 == 1)
                    #expect(log.contains("--userspace"))
                    #expect(log.components(separatedBy: "INFO connection established from").count - 1 == 6)
                }
            }
        }

        @Test func aCrashAHangAndATimeoutAreRecordedAsThroughLockdown() async throws {
            try await EndToEnd.withDevices([("iPhone15,4", "17.5")]) { devices in
                let faults = Faults(
                    crash: CrashFault(when: LaunchSelector(launches: [2]), after: "main", signal: 11),
                    hang: PointFault(when: LaunchSelector(launches: [3]), after: "main"))
                let app = try EndToEnd.makeApp("TunnelFaults", profile: EndToEnd.profile(faults: faults))
                let driver = try await Pymobiledevice3EndToEnd.driver(selection: .auto)
                let result = try await Pymobiledevice3EndToEnd.run(
                    EndToEnd.plan(app, devices: devices, iterations: 2, timeout: .seconds(4)), driver: driver)
                let samples = try result.samples
                #expect(
                    samples.map(\.status) == [.ok, .crashed, .timeout, .ok],
                    "\(samples.map { $0.message ?? "" })")
                #expect(samples[1].signal == 11)
                #expect(samples[3][.firstFrameMs] != nil)
            }
        }

        /// As through lockdown: the launch under way is `device-lost`, the device's run ends there (`lost`), and
        /// the launches measured before are kept.
        @Test func aRebootMidLaunchIsDeviceLostAndNothingElseIsLost() async throws {
            try await EndToEnd.withDevices([("iPhone15,4", "17.5")]) { devices in
                let device = devices[0]
                // The second launch hangs after main: the phone reboots during it.
                let hang = Faults(hang: PointFault(when: LaunchSelector(launches: [2]), after: "main"))
                let app = try EndToEnd.makeApp("TunnelReboot", profile: EndToEnd.profile(faults: hang))
                let lab = try await SharedTestLab.lab()
                let rebooter = Task {
                    for _ in 0..<600 {
                        if device.services.launchHistory.filter({ $0.bundleID == app.bundleID }).count == 2 {
                            try await Task.sleep(for: .milliseconds(300))
                            try await lab.reboot(udid: device.udid, bootSeconds: 50)
                            return true
                        }
                        try await Task.sleep(for: .milliseconds(50))
                    }
                    return false
                }
                let started = ContinuousClock.now
                let driver = try await Pymobiledevice3EndToEnd.driver(selection: .auto)
                let result = try await Pymobiledevice3EndToEnd.run(
                    EndToEnd.plan(app, devices: devices, iterations: 3, timeout: .seconds(30)), driver: driver)
                let samples = try result.samples
                #expect(try await rebooter.value)
                #expect(ContinuousClock.now - started < .seconds(120))
                #expect(
                    samples.map(\.status) == [.ok, .deviceLost], "\(samples.map { $0.message ?? "" })")
                #expect(samples[0][.firstFrameMs] != nil)
                // pymobiledevice3's own words about its tunnel are in the message.
                #expect(samples[1].message?.contains("tunnel") == true, "\(samples[1].message ?? "")")
                #expect(result.manifest.outcome(of: device.udid)?.outcome == .lost)
                #expect(await driver.pymobiledevice3?.runningProcessIdentifiers.isEmpty == true)
            }
        }
    }
}

extension RealPymobiledevice3TunnelTests {
    /// The faults of a modern phone's transport, each a recorded failure with pymobiledevice3's own words
    /// and the fix, within 60 s: never a hang.
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(5)), installed) struct TunnelFaultTests {
        /// Runs one iteration without warm launches; returns the sample and how long it took.
        func measureOnce(_ device: EmulatedDevice, app name: String) async throws -> (Sample, Duration) {
            let app = try EndToEnd.makeApp(name, profile: EndToEnd.profile())
            let driver = try await Pymobiledevice3EndToEnd.driver(selection: .auto)
            let started = ContinuousClock.now
            let result = try await Pymobiledevice3EndToEnd.run(
                EndToEnd.plan(app, devices: [device], iterations: 1, warm: 0), driver: driver)
            let samples = try result.samples
            let sample = try #require(samples.first)
            return (sample, ContinuousClock.now - started)
        }

        @Test func coreDeviceProxyRefusedIsARecordedFailureWithAdvice() async throws {
            try await EndToEnd.withDevices([("iPhone15,4", "17.5")]) { devices in
                devices[0].services.coreDeviceProxyRefusal = "InvalidService"
                let (sample, took) = try await measureOnce(devices[0], app: "NoProxy")
                #expect(sample.status == .launchRefused)
                let message = sample.message ?? ""
                #expect(message.contains("it said:"), "\(message)")
                #expect(message.contains("CoreDeviceProxy"), "\(message)")
                #expect(took < .seconds(60))
            }
        }

        @Test func noDeveloperDiskImageIsARecordedFailureThatSaysMountIt() async throws {
            try await EndToEnd.withDevices([("iPhone15,4", "17.5")]) { devices in
                devices[0].services.developerDiskImageMounted = false
                let (sample, took) = try await measureOnce(devices[0], app: "NoDDI")
                #expect(sample.status == .launchRefused, "\(sample.message ?? "")")
                let message = sample.message ?? ""
                #expect(message.contains("mounter auto-mount"), "\(message)")
                #expect(took < .seconds(60))
            }
        }

        @Test func aTunnelDroppedMidLaunchIsRecordedAndTheNextLaunchBuildsANewOne() async throws {
            try await EndToEnd.withDevices([("iPhone15,4", "17.5")]) { devices in
                let device = devices[0]
                let hang = Faults(hang: PointFault(when: LaunchSelector(launches: [1]), after: "main"))
                let app = try EndToEnd.makeApp("TunnelDrop", profile: EndToEnd.profile(faults: hang))
                let dropper = Task {
                    for _ in 0..<600 {
                        if !device.services.launchHistory.filter({ $0.bundleID == app.bundleID }).isEmpty {
                            try await Task.sleep(for: .milliseconds(300))
                            return device.services.dropTunnels()
                        }
                        try await Task.sleep(for: .milliseconds(50))
                    }
                    return 0
                }
                let driver = try await Pymobiledevice3EndToEnd.driver(selection: .auto)
                let started = ContinuousClock.now
                let result = try await Pymobiledevice3EndToEnd.run(
                    EndToEnd.plan(app, devices: devices, iterations: 1, warm: 1, timeout: .seconds(30)), driver: driver)
                let samples = try result.samples
                #expect(try await dropper.value == 1)
                #expect(ContinuousClock.now - started < .seconds(60))
                #expect(samples.count == 2)
                #expect(samples.first?.status != .ok, "\(samples.map { $0.message ?? "" })")
                #expect(samples.first?.message?.contains("pymobiledevice3") == true)
                #expect(samples.last?.status == .ok, "\(samples.map { $0.message ?? "" })")
            }
        }
    }
}

extension RealPymobiledevice3TunnelTests {
    /// iOS 17.0–17.3.1 through a tunneld: the emulator's loopback stand-in for pymobiledevice3's root
    /// `remote tunneld`, on its own port (`--tunneld PORT`), so parallel runs never share 49151.
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(5)), installed) struct TunneldEndToEndTests {
        /// Both launchers: the sidecar's debugserver, or process control on the kdebug helper's own DTX connection,
        /// which reaches the instruments service through the same tunneld.
        @Test(arguments: [LauncherChoice.debugserver, .processControl])
        func samplesThroughTunneldEqualTheEmulatorsTruth(launcher: LauncherChoice) async throws {
            let tunneld = try await TunneldStandIn.start(lab: try await SharedTestLab.lab())
            defer { Task { await tunneld.stop() } }
            try await EndToEnd.withDevices([("iPhone15,2", "17.2")]) { devices in
                let app = try EndToEnd.makeApp("ThroughTunneld", profile: EndToEnd.profile())
                let driver = try await Pymobiledevice3EndToEnd.driver(selection: .auto, tunneld: String(tunneld.port))
                var plan = EndToEnd.plan(app, devices: devices, iterations: 2)
                plan.launcher = launcher
                let result = try await Pymobiledevice3EndToEnd.run(plan, driver: driver, readsKdebug: true)
                let samples = try result.samples
                #expect(samples.count == 4)
                #expect(samples.allSatisfy { $0.status == .ok }, "\(samples.map { $0.message ?? "" })")
                #expect(samples.allSatisfy { $0.premainSource == .kdebug && $0[.dylibLoadingMs] != nil })
                #expect(samples.allSatisfy { $0[.firstFrameMs] != nil && $0[.didFinishLaunchingMs] != nil })
                let method: LaunchMethod = launcher == .processControl ? .processControl : .debugserver
                #expect(samples.allSatisfy { $0.launcher == method })
                #expect(result.manifest.outcome(of: devices[0].udid)?.premainSource == .kdebug)
                #expect(result.manifest.outcome(of: devices[0].udid)?.launcher == method)
                #expect(devices[0].services.launchHistory.count == 4)
                guard launcher == .debugserver else { return }  // no sidecar is started for process control
                let udid = devices[0].udid
                let log = try String(
                    contentsOf: result.folder.appendingPathComponent("logs/\(udid)/pymobiledevice3.log"),
                    encoding: .utf8)
                #expect(log.contains("--tunnel \(udid):\(tunneld.port)"))
            }
        }

        @Test func aTunneldThatIsNotRunningIsARecordedFailureThatNamesTheFix() async throws {
            // A port nobody listens on: bound, then closed.
            let closed = try await TunneldStandIn.start(lab: try await SharedTestLab.lab())
            let port = closed.port
            await closed.stop()
            try await EndToEnd.withDevices([("iPhone15,2", "17.2")]) { devices in
                let app = try EndToEnd.makeApp("NoTunneld", profile: EndToEnd.profile())
                let driver = try await Pymobiledevice3EndToEnd.driver(selection: .auto, tunneld: String(port))
                let started = ContinuousClock.now
                let result = try await Pymobiledevice3EndToEnd.run(
                    EndToEnd.plan(app, devices: devices, iterations: 1, warm: 0), driver: driver)
                let samples = try result.samples
                #expect(ContinuousClock.now - started < .seconds(60))
                let sample = try #require(samples.first)
                #expect(sample.status == .launchRefused)
                let message = sample.message ?? ""
                #expect(message.contains("it said:"), "\(message)")
                #expect(message.contains("sudo pymobiledevice3 remote tunneld"), "\(message)")
                #expect(message.contains("--tunneld"), "\(message)")
            }
        }
    }
}
