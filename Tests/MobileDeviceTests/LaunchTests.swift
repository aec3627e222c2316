import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import MobileDevice

/// Launches over debugserver, real libimobiledevice against the shared emulated lab.
@Suite(.tags(.emulator), .timeLimit(.minutes(5))) struct LaunchTests {
    /// Installs `app` on a fresh device of the shared lab and runs `body`.
    func withInstalled(
        _ app: AppBundle, osVersion: String = "12.5.7", productType: String = "iPhone10,3",
        _ body: (EmulatedDevice, MobileDeviceDriver) async throws -> Void
    ) async throws {
        defer { TestApps.remove(app) }
        try await SharedTestLab.withDevice(productType: productType, osVersion: osVersion) { device in
            let driver = MobileDeviceDriver()
            try await driver.install(app, on: device.udid, timeout: .seconds(60))
            try await body(device, driver)
        }
    }

    @Test func runsToTheEndAndStreamsDyldAndMarkers() async throws {
        try await withInstalled(try TestApps.app()) { device, driver in
            let observer = RecordingObserver()
            let request = LaunchRequest(
                bundleID: "com.example.launchbench.sample",
                environment: [EnvironmentVariable(name: "DYLD_PRINT_STATISTICS", value: "1")])
            let end = try await driver.launch(request, on: device.udid, observer: observer)
            #expect(end == .exited(status: 0))
            #expect(observer.wasLaunched)
            #expect(observer.text.contains("Total pre-main time"))  // the variable reached the emulated dyld
            #expect(observer.text.contains("[launchbench] mark=firstFrame"))
            #expect(observer.text.contains("[launchbench] done"))
        }
    }

    @Test func environmentAndArgumentsArriveIntact() async throws {
        try await withInstalled(try TestApps.app(), osVersion: "14.8", productType: "iPhone12,1") { device, driver in
            try await RecordingDebugserver.shared.enable(for: device.udid)
            let environment = [
                EnvironmentVariable(name: "LB_EQUALS", value: "a=b=c"),
                EnvironmentVariable(name: "LB_SPACES", value: "  two  spaces "),
                EnvironmentVariable(name: "LB_UNICODE", value: "Grüße, 日本, ✓"),
                EnvironmentVariable(name: "LB_EMPTY", value: ""),
                EnvironmentVariable(name: "DYLD_PRINT_STATISTICS", value: "1"),
            ]
            let observer = RecordingObserver()
            let request = LaunchRequest(
                bundleID: "com.example.launchbench.sample", arguments: ["--flag", "a b", "ünï ✓"],
                environment: environment)
            let end = try await driver.launch(request, on: device.udid, observer: observer)
            #expect(end == .exited(status: 0))
            #expect(observer.text == "recorded\n")

            let launch = try #require(RecordingDebugserver.shared.launch(on: device.udid))
            #expect(launch.environment == environment.map(\.assignment))
            let installed = try #require(device.services.app("com.example.launchbench.sample"))
            #expect(launch.arguments == [installed.executablePath, "--flag", "a b", "ünï ✓"])
            #expect(launch.workingDirectory == installed.container)
            // LLDB's first packet, then the order the library and idevicedebug use, and no OK
            // acknowledgements after `c`.
            let kinds = launch.packets.map { $0.hasPrefix("A") ? "A" : String($0.prefix(while: { $0 != ":" })) }
            #expect(
                kinds
                    == ["QStartNoAckMode", "QSetMaxPacketSize", "QSetWorkingDir"]
                    + Array(repeating: "QEnvironmentHexEncoded", count: environment.count)
                    + ["A", "qLaunchSuccess", "Hc0", "c"])
            #expect(!launch.packets.contains("OK"))
        }
    }

    @Test func environmentValuesWithEqualsSpacesAndUnicodeWorkWithTheLabsDebugserver() async throws {
        try await withInstalled(try TestApps.app()) { device, driver in
            let observer = RecordingObserver()
            let request = LaunchRequest(
                bundleID: "com.example.launchbench.sample", arguments: ["--flag", "a b", "ünï ✓"],
                environment: [
                    EnvironmentVariable(name: "LB_EQUALS", value: "a=b=c"),
                    EnvironmentVariable(name: "LB_SPACES", value: "  two  spaces "),
                    EnvironmentVariable(name: "LB_UNICODE", value: "Grüße, 日本, ✓"),
                    EnvironmentVariable(name: "DYLD_PRINT_STATISTICS", value: "1"),
                ])
            let end = try await driver.launch(request, on: device.udid, observer: observer)
            #expect(end == .exited(status: 0))
            #expect(observer.text.contains("Total pre-main time"))
        }
    }

    @Test func aCrashIsReportedAsCrashed() async throws {
        let profile = AppProfile(
            faults: Faults(crash: CrashFault(when: LaunchSelector(launches: [1]), after: "main", signal: 11)))
        try await withInstalled(try TestApps.app(profile: profile)) { device, driver in
            let observer = RecordingObserver()
            let end = try await driver.launch(
                LaunchRequest(bundleID: "com.example.launchbench.sample"), on: device.udid, observer: observer)
            #expect(end == .crashed(signal: 11))
            #expect(observer.text.contains("mark=main"))
            #expect(!observer.text.contains("mark=firstFrame"))
        }
    }

    @Test func aHangIsEndedByTheObserverAndTheAppIsGone() async throws {
        let profile = AppProfile(faults: Faults(hang: PointFault(when: LaunchSelector(launches: [1]), after: "main")))
        try await withInstalled(try TestApps.app(profile: profile)) { device, driver in
            // Ends the launch half a second after it started.
            let observer = RecordingObserver { _, launched, now in now - launched > .milliseconds(500) ? .timeout : nil
            }
            let end = try await driver.launch(
                LaunchRequest(bundleID: "com.example.launchbench.sample"), on: device.udid, observer: observer)
            #expect(end == .endedByHarness(.timeout))
            #expect(observer.text.contains("mark=main"))
            // Asked often while the app was silent (every poll), not once per second.
            #expect(observer.timesAsked >= 5)
            // The app is gone: the next launch works (a second one would be refused or mixed up otherwise).
            let again = RecordingObserver()
            let next = try await driver.launch(
                LaunchRequest(bundleID: "com.example.launchbench.sample"), on: device.udid, observer: again)
            #expect(next == .exited(status: 0))
        }
    }

    @Test func theObserverEndsALaunchOnceTheExpectedOutputArrived() async throws {
        let profile = AppProfile(exitAfterDone: false)
        try await withInstalled(try TestApps.app(profile: profile)) { device, driver in
            let observer = RecordingObserver { text, _, _ in text.contains("[launchbench] done") ? .complete : nil }
            let end = try await driver.launch(
                LaunchRequest(bundleID: "com.example.launchbench.sample"), on: device.udid, observer: observer)
            #expect(end == .endedByHarness(.complete))
        }
    }

    @Test func cancellingTheTaskKillsTheApp() async throws {
        let profile = AppProfile(faults: Faults(hang: PointFault(when: LaunchSelector(launches: [1]))))
        try await withInstalled(try TestApps.app(profile: profile)) { device, driver in
            let observer = RecordingObserver()
            let task = Task {
                try await driver.launch(
                    LaunchRequest(bundleID: "com.example.launchbench.sample"), on: device.udid, observer: observer)
            }
            try await waitUntil("the app is launched") { observer.wasLaunched }
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            let next = try await driver.launch(
                LaunchRequest(bundleID: "com.example.launchbench.sample"), on: device.udid,
                observer: RecordingObserver())
            #expect(next == .exited(status: 0))
        }
    }

    @Test func aDeviceUnpluggedMidLaunchIsDeviceLost() async throws {
        let profile = AppProfile(faults: Faults(hang: PointFault(when: LaunchSelector(launches: [1]))))
        try await withInstalled(try TestApps.app(profile: profile)) { device, driver in
            let lab = try await SharedTestLab.lab()
            let observer = RecordingObserver()
            let task = Task {
                try await driver.launch(
                    LaunchRequest(bundleID: "com.example.launchbench.sample"), on: device.udid, observer: observer)
            }
            try await waitUntil("the app is launched") { observer.wasLaunched }
            try lab.detach(udid: device.udid)
            await #expect {
                try await task.value
            } throws: { error in
                (error as? DeviceError)?.failureKind == .deviceLost
            }
            try lab.attach(udid: device.udid)
        }
    }

    @Test func anAppNotSignedForDevelopmentIsRefusedWithTheReason() async throws {
        try await withInstalled(try TestApps.app(profile: AppProfile(developmentSigned: false))) { device, driver in
            await #expect {
                try await driver.launch(
                    LaunchRequest(bundleID: "com.example.launchbench.sample"), on: device.udid,
                    observer: RecordingObserver())
            } throws: { error in
                guard let error = error as? DeviceError, case .launchRefused(_, _, .notSignedForDevelopment, _) = error
                else { return false }
                return error.failureKind == .launchRefused && (error.errorDescription ?? "").contains("get-task-allow")
            }
        }
    }

    @Test func aLockedDeviceIsRefusedWithTheReason() async throws {
        try await withInstalled(try TestApps.app()) { device, driver in
            device.services.isLocked = true
            await #expect {
                try await driver.launch(
                    LaunchRequest(bundleID: "com.example.launchbench.sample"), on: device.udid,
                    observer: RecordingObserver())
            } throws: { error in
                guard case DeviceError.launchRefused(_, _, .phone(let refusal), _) = error else { return false }
                return refusal.cause == .locked
            }
        }
    }

    /// FrontBoard refuses an invalid signature and an untrusted developer profile alike (Security); debugserver
    /// passes the refusal on after `E` and the error names the cause and the fix, as process control's does.
    @Test(arguments: ["signature", "untrusted profile"])
    func anAppThePhoneWillNotOpenIsRefusedForSecurity(fault: String) async throws {
        var profile = AppProfile()
        profile.codeSignatureValid = fault == "signature" ? false : nil
        try await withInstalled(try TestApps.app(profile: profile)) { device, driver in
            if fault != "signature" { device.services.trustsAppDevelopers = false }
            await #expect {
                try await driver.launch(
                    LaunchRequest(bundleID: "com.example.launchbench.sample"), on: device.udid,
                    observer: RecordingObserver())
            } throws: { error in
                guard let error = error as? DeviceError,
                    case .launchRefused(_, _, .phone(let refusal), "Security") = error
                else { return false }
                let message = error.errorDescription ?? ""
                return refusal.cause == .security && message.contains(device.udid)
                    && message.contains("Settings > General > VPN & Device Management")
            }
            #expect(device.services.launchHistory.isEmpty)
        }
    }

    /// debugserver is on the Developer Disk Image: without it (or, on iOS 16, with Developer Mode off, when it
    /// cannot be mounted) lockdown refuses the service and the error says which and how to fix it.
    @Test(arguments: [("14.8", "no image"), ("16.7", "no image"), ("16.7", "developer mode off")])
    func withoutTheDeveloperDiskImageLockdownOffersNoDebugserver(osVersion: String, fault: String) async throws {
        try await withInstalled(try TestApps.app(), osVersion: osVersion, productType: "iPhone12,1") {
            device, driver in
            if fault == "no image" {
                device.services.developerDiskImageMounted = false
            } else {
                device.setLockdownValue(false, domain: "com.apple.security.mac.amfi", key: "DeveloperModeStatus")
            }
            await #expect {
                try await driver.launch(
                    LaunchRequest(bundleID: "com.example.launchbench.sample"), on: device.udid,
                    observer: RecordingObserver())
            } throws: { error in
                guard let error = error as? DeviceError,
                    case .debugserverUnavailable(device.udid, _, osVersion, let modeOff, _) = error
                else { return false }
                let message = error.errorDescription ?? ""
                return modeOff == (fault != "no image") && error.failureKind == .launchRefused
                    && message.contains(
                        fault == "no image" ? "Developer Disk Image is not mounted" : "Developer Mode is off")
            }
            #expect(device.services.launchHistory.isEmpty)
        }
    }

    @Test func iOS17SaysLockdownNoLongerOffersDebugserver() async throws {
        try await withInstalled(try TestApps.app(), osVersion: "17.5", productType: "iPhone15,4") { device, driver in
            await #expect {
                try await driver.launch(
                    LaunchRequest(bundleID: "com.example.launchbench.sample"), on: device.udid,
                    observer: RecordingObserver())
            } throws: { error in
                guard let error = error as? DeviceError,
                    case .debugserverUnavailable(let udid, _, "17.5", false, _) = error
                else { return false }
                let message = error.errorDescription ?? ""
                return udid == device.udid && message.contains("no longer offers debugserver")
                    && message.contains(device.name) && error.failureKind == .launchRefused
            }
        }
    }

    @Test func anAppThatIsNotInstalledIsNamed() async throws {
        try await SharedTestLab.withDevice(osVersion: "14.8") { device in
            await #expect {
                try await MobileDeviceDriver().launch(
                    LaunchRequest(bundleID: "com.example.missing"), on: device.udid, observer: RecordingObserver())
            } throws: { error in
                guard case DeviceError.appNotInstalled("com.example.missing", device.udid) = error else { return false }
                return true
            }
        }
    }
}
