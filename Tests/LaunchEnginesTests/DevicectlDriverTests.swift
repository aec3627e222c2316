import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import LaunchEngines

/// The devicectl engine against the stand-in `xcrun` in Fixtures/devicectl (see its README): our argv
/// and our parsing of devicectl's JSON, console lines and failures.
@Suite(.tags(.subprocess), .timeLimit(.minutes(1))) struct DevicectlDriverTests {
    let argvLog = EngineFixtures.temporaryFolder().appendingPathComponent("argv.log")

    func driver(scenario: String = "ok") -> DevicectlDriver {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = EngineFixtures.devicectl.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["XCRUN_SCENARIO"] = scenario
        environment["XCRUN_ARGV_LOG"] = argvLog.path
        return DevicectlDriver(environment: environment, terminalWrapper: [])
    }

    /// Each call's argv (after `xcrun`).
    func calls() throws -> [[String]] {
        let text = try String(contentsOf: argvLog, encoding: .utf8)
        return text.components(separatedBy: "--\n").filter { !$0.isEmpty }.map {
            $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
        }
    }

    let udid = "00008120-001A2B3C4D5E6F70"

    @Test func listDevicesReadsResultDevices() async throws {
        let devices = try await driver().listDevices()
        #expect(devices.count == 2)
        let phone = try #require(devices.first)
        #expect(phone.udid == udid)
        #expect(phone.name == "Test iPhone 15")
        #expect(phone.productType == "iPhone15,4")
        #expect(phone.osVersion == "17.5.1")
        #expect(phone.buildVersion == "21F90")
        #expect(phone.connection == .usb)
        #expect(devices[1].connection == .network)
        let call = try #require(try calls().first)
        #expect(Array(call.prefix(4)) == ["devicectl", "list", "devices", "--json-output"])
        // devicectl's JSON goes to the run's private folder, never a shared temporary one.
        let json = try #require(call.count > 4 ? call[4] : nil)
        #expect(json.hasPrefix(PrivateFolder.runLocation.path + "/"), "\(json)")
    }

    @Test func consoleLaunchStreamsTheAppsLinesOnlyAndReadsTheExitCode() async throws {
        let request = LaunchRequest(
            bundleID: "com.example.sample", arguments: ["-flag"],
            environment: [
                EnvironmentVariable(name: "DYLD_PRINT_STATISTICS", value: "1"),
                EnvironmentVariable(name: "GREETING", value: "a=b c \"quoted\" é"),
            ])
        let observer = RecordingObserver()
        let termination = try await driver().launch(request, on: udid, observer: observer)
        #expect(termination == .exited(status: 0))
        #expect(observer.wasLaunched)
        #expect(
            observer.text == """
                [launchbench] mark=main t=142.7
                [launchbench] mark=didFinishLaunching t=188.1
                app says hi
                [launchbench] mark=firstFrame t=231.9
                [launchbench] done

                """)
        let call = try #require(try calls().first)
        #expect(
            Array(call.prefix(8)) == [
                "devicectl", "device", "process", "launch", "--device", udid, "--terminate-existing", "--console",
            ])
        #expect(call[8] == "--environment-variables")
        let environment = try #require(
            try JSONSerialization.jsonObject(with: Data(call[9].utf8)) as? [String: String])
        #expect(environment == ["DYLD_PRINT_STATISTICS": "1", "GREETING": "a=b c \"quoted\" é"])
        #expect(Array(call.suffix(2)) == ["com.example.sample", "-flag"])
    }

    @Test func nonZeroExitCodeAndCrashSignalAreReported() async throws {
        let request = LaunchRequest(bundleID: "com.example.sample")
        let exited = try await driver(scenario: "exit-code").launch(request, on: udid, observer: RecordingObserver())
        #expect(exited == .exited(status: 3))
        let crash = RecordingObserver()
        let crashed = try await driver(scenario: "crash").launch(request, on: udid, observer: crash)
        #expect(crashed == .crashed(signal: 11))
        #expect(crash.text == "[launchbench] mark=main t=150.2\n")
    }

    @Test func aHangingAppIsEndedAtTheTimeoutAndTerminatedByPid() async throws {
        let devicectl = driver(scenario: "hang")
        try await devicectl.install(EngineFixtures.app, on: udid, timeout: .seconds(10))
        let started = ContinuousClock.now
        let termination = try await devicectl.launch(
            LaunchRequest(bundleID: "com.example.sample"), on: udid,
            observer: RecordingObserver(stopAfter: .milliseconds(300)))
        #expect(termination == .endedByHarness(.timeout))
        // A launch that is never ended hangs; the bound is loose for a loaded CI machine.
        #expect(ContinuousClock.now - started < .seconds(60))
        let calls = try calls()
        #expect(calls.contains { $0.starts(with: ["devicectl", "device", "info", "processes", "--device", udid]) })
        // Sample.app/Sample is pid 4242 in processes.json.
        #expect(
            calls.contains { $0 == ["devicectl", "device", "process", "terminate", "--device", udid, "--pid", "4242"] })
    }

    @Test(arguments: [
        ("locked", "The device is locked.", "Unlock the device"),
        ("ddi-missing", "developer disk image could not be mounted", "mounts the Developer Disk Image"),
        ("not-installed", "is not installed", "Install the app first"),
    ])
    func launchFailuresAreErrorsThatNameTheFix(scenario: String, says: String, fix: String) async throws {
        do {
            _ = try await driver(scenario: scenario).launch(
                LaunchRequest(bundleID: "com.example.sample"), on: udid, observer: RecordingObserver())
            Issue.record("\(scenario): the launch should have failed")
        } catch let error as EngineError {
            let text = error.errorDescription ?? ""
            #expect(text.contains("xcrun devicectl device process launch failed on \(udid)"))
            #expect(text.contains(says))
            #expect(text.contains(fix))
            #expect(error.failureKind == .launchRefused)
        }
    }

    @Test func installFailureIsAnInstallFailureAndUninstallOfAMissingAppSucceeds() async throws {
        await #expect(throws: EngineError.self) {
            try await driver(scenario: "locked").install(EngineFixtures.app, on: udid, timeout: .seconds(10))
        }
        do {
            try await driver(scenario: "locked").install(EngineFixtures.app, on: udid, timeout: .seconds(10))
        } catch let error as EngineError {
            #expect(error.failureKind == .installFailed)
        }
        try await driver(scenario: "not-installed").uninstall(bundleID: "com.example.sample", on: udid)
        let calls = try calls()
        #expect(calls.last == ["devicectl", "device", "uninstall", "app", "--device", udid, "com.example.sample"])
        #expect(calls.first == ["devicectl", "device", "install", "app", "--device", udid, "/tmp/Sample.app"])
    }

    @Test func consoleLinesAreClassified() {
        #expect(DevicectlOutput.classify("The app terminated with the exit code 0.") == .exited(0))
        #expect(DevicectlOutput.classify("App terminated due to signal 9.") == .signaled(9))
        #expect(DevicectlOutput.classify("08:15:02  Acquired tunnel connection to device.") == .status)
        #expect(
            DevicectlOutput.classify("ERROR: x (com.apple.dt.CoreDeviceError error 1 (0x1))")
                == .error("x (com.apple.dt.CoreDeviceError error 1 (0x1))"))
        #expect(DevicectlOutput.classify("[launchbench] mark=main t=1") == .app)
    }

    @Test func macOSRunsDevicectlUnderAPseudoTerminal() {
        #if os(macOS)
            #expect(DevicectlDriver.defaultTerminalWrapper == ["/usr/bin/script", "-q", "-t", "0", "/dev/null"])
        #else
            #expect(DevicectlDriver.defaultTerminalWrapper.isEmpty)
        #endif
    }
}

/// The routing driver sends a devicectl device's install, uninstall and launch to devicectl, and its
/// listing to the lockdown driver; a cancelled devicectl launch ends devicectl and the app.
@Suite(.tags(.subprocess), .timeLimit(.minutes(1))) struct DevicectlRoutingTests {
    /// Fails every call: nothing may reach it but listing.
    final class ListingOnlyBase: ForwardedDebugserverLaunching, Sendable {
        let devices: [DeviceInfo]
        init(_ devices: [DeviceInfo]) { self.devices = devices }
        struct Unexpected: Error {}
        func listDevices(reading udids: [String]?) async throws -> DeviceListing {
            DeviceListing(devices: devices)
        }
        func uninstall(bundleID: String, on udid: String) async throws { throw Unexpected() }
        func install(_ app: AppBundle, on udid: String, timeout: Duration) async throws { throw Unexpected() }
        func restart(_ udid: String, timeout: Duration) async throws { throw Unexpected() }
        func launch(_ request: LaunchRequest, on udid: String, observer: any LaunchObserver) async throws
            -> LaunchTermination
        {
            throw Unexpected()
        }
        func launch(
            _ request: LaunchRequest, on udid: String, forwardedPort port: UInt16, forwarder: String,
            observer: any LaunchObserver
        ) async throws -> LaunchTermination { throw Unexpected() }
    }

    @Test func aDevicectlDeviceIsInstalledAndLaunchedThroughDevicectl() async throws {
        let tests = DevicectlDriverTests()
        let device = EngineFixtures.device(ios: "17.5")
        let driver = EngineRoutingDriver(
            base: ListingOnlyBase([device]),
            router: EngineRouter(selection: .auto, host: EngineHost(isMacOS: true, xcodeVersion: OSVersion(16, 2))),
            devices: [device], devicectl: tests.driver())
        #expect(driver.router.decision(for: device).engine == .devicectl)
        try await driver.uninstall(bundleID: "com.example.sample", on: device.udid)
        try await driver.install(EngineFixtures.app, on: device.udid, timeout: .seconds(10))
        let termination = try await driver.launch(
            LaunchRequest(bundleID: "com.example.sample"), on: device.udid, observer: RecordingObserver())
        #expect(termination == .exited(status: 0))
        #expect(
            try tests.calls().map { Array($0.prefix(3)) } == [
                ["devicectl", "device", "uninstall"], ["devicectl", "device", "install"],
                ["devicectl", "device", "process"],
            ])
    }

    @Test func aCancelledLaunchStopsDevicectlAndTerminatesTheApp() async throws {
        let tests = DevicectlDriverTests()
        let devicectl = tests.driver(scenario: "hang")
        try await devicectl.install(EngineFixtures.app, on: tests.udid, timeout: .seconds(10))
        let observer = RecordingObserver()
        let launch = Task {
            try await devicectl.launch(
                LaunchRequest(bundleID: "com.example.sample"), on: tests.udid, observer: observer)
        }
        try await observer.waitForOutput("the app's main marker") { $0.contains("mark=main") }
        launch.cancel()
        await #expect(throws: CancellationError.self) { _ = try await launch.value }
        #expect(
            try tests.calls().contains {
                $0 == ["devicectl", "device", "process", "terminate", "--device", tests.udid, "--pid", "4242"]
            })
    }
}
