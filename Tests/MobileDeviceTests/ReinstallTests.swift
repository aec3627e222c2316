import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import MobileDevice

/// The lean reinstall (one lockdown session, the upload while installd uninstalls) and the emulated
/// device's own account of its busy time, real libimobiledevice against the shared lab.
@Suite(.tags(.emulator), .timeLimit(.minutes(2))) struct ReinstallTests {
    /// The emulated delays at the lab's time scale (§5.3 sequences: 13 install messages, 3 uninstall
    /// messages, 50 emulated ms each).
    static let installSeconds = 13 * 0.05 * SharedTestLab.timeScale
    static let uninstallSeconds = 3 * 0.05 * SharedTestLab.timeScale

    @Test func theAppIsFullyRemovedBeforeTheInstallStarts() async throws {
        let app = try TestApps.app()
        defer { TestApps.remove(app) }
        try await SharedTestLab.withDevice { device in
            let driver = MobileDeviceDriver()
            try await driver.install(app, on: device.udid, timeout: .seconds(60))
            let firstPath = try #require(device.services.app(app.bundleID)).path
            let before = device.services.activityHistory.count

            let timings = try await driver.reinstall(app, on: device.udid, timeout: .seconds(60))

            let reinstalled = try #require(device.services.app(app.bundleID))
            #expect(reinstalled.path != firstPath)  // a new install, not the old one left in place
            let steps = device.services.activityHistory.dropFirst(before).filter { $0.kind == .installer }
            // The last Lookup finds where the app landed, for the cold launch that follows.
            #expect(steps.map(\.name) == ["Lookup", "Uninstall", "Install", "Lookup"])
            let uninstall = try #require(steps.first { $0.name == "Uninstall" })
            let install = try #require(steps.first { $0.name == "Install" })
            #expect(uninstall.startedAt.addingTimeInterval(uninstall.seconds) <= install.startedAt)
            #expect(timings.upload != nil)
            #expect(timings.uninstall.seconds(atLeast: Self.uninstallSeconds))
            #expect(timings.install.seconds(atLeast: Self.installSeconds))
        }
    }

    /// The reinstall looks the app up on its own installd connection, so the cold launch after it asks nothing.
    @Test func theColdLaunchAfterAReinstallNeedsNoLookupOfItsOwn() async throws {
        let app = try TestApps.app()
        defer { TestApps.remove(app) }
        try await SharedTestLab.withDevice { device in
            let driver = MobileDeviceDriver()
            _ = try await driver.reinstall(app, on: device.udid, timeout: .seconds(60))
            let before = device.services.activityHistory.count
            let end = try await driver.launch(
                LaunchRequest(bundleID: app.bundleID), on: device.udid, observer: RecordingObserver())
            #expect(end == .exited(status: 0))
            #expect(device.services.activityHistory.dropFirst(before).map(\.name) == ["cold"])
        }
    }

    @Test func anAppThatIsNotInstalledIsOnlyInstalled() async throws {
        let app = try TestApps.app()
        defer { TestApps.remove(app) }
        try await SharedTestLab.withDevice { device in
            _ = try await MobileDeviceDriver().reinstall(app, on: device.udid, timeout: .seconds(60))
            #expect(device.services.app(app.bundleID) != nil)
            #expect(device.services.activityHistory.map(\.name) == ["Lookup", "Install", "Lookup"])
        }
    }

    @Test func aRefusedInstallNamesTheInstallStep() async throws {
        let app = try TestApps.app()
        defer { TestApps.remove(app) }
        try await SharedTestLab.withDevice { device in
            let driver = MobileDeviceDriver()
            try await driver.install(app, on: device.udid, timeout: .seconds(60))
            device.services.installFailure = InstallFailure(error: "ApplicationVerificationFailed", description: "no")
            await #expect {
                try await driver.reinstall(app, on: device.udid, timeout: .seconds(60))
            } throws: { error in
                guard
                    case .installFailed(.install, _, _, _, "ApplicationVerificationFailed", _, _)? = error
                        as? DeviceError
                else { return false }
                return true
            }
            #expect(device.services.app(app.bundleID) == nil)  // the uninstall went through
        }
    }

    @Test func theDeviceAccountsForEachCommandAndLaunchWithItsOwnTime() async throws {
        let app = try TestApps.app()
        defer { TestApps.remove(app) }
        try await SharedTestLab.withDevice(productType: "iPhone12,1", osVersion: "14.8") { device in
            let driver = MobileDeviceDriver()
            try await driver.install(app, on: device.udid, timeout: .seconds(60))
            try await driver.uninstall(bundleID: app.bundleID, on: device.udid)
            let history = device.services.activityHistory
            let install = try #require(history.first { $0.name == "Install" })
            let uninstall = try #require(history.first { $0.name == "Uninstall" })
            #expect(install.bundleID == app.bundleID && uninstall.bundleID == app.bundleID)
            // Never less than the emulated delays; nowhere near the seconds a stuck timer would take.
            #expect(install.seconds >= Self.installSeconds * 0.99)
            #expect(uninstall.seconds >= Self.uninstallSeconds * 0.99)
            #expect(history.allSatisfy { $0.seconds < 5 })
            #expect(!history.contains { $0.kind == .launch })

            let started = Date()
            try await driver.install(app, on: device.udid, timeout: .seconds(60))
            let end = try await driver.launch(
                LaunchRequest(bundleID: app.bundleID), on: device.udid, observer: RecordingObserver())
            #expect(end == .exited(status: 0))
            // A loop, not `filter`: Swift 6.3 (debug) returned a wrong element from `filter` here.
            var launches: [DeviceActivity] = []
            for activity in device.services.activityHistory where activity.kind == .launch { launches.append(activity) }
            #expect(launches.count == 1)
            let launch = try #require(launches.first)
            #expect(launch.name == "cold")
            #expect(launch.bundleID == app.bundleID)
            #expect(launch.seconds > 0)
            #expect(launch.startedAt >= started)
            let busy = device.services.busySeconds(since: started)
            #expect(busy >= launch.seconds + Self.installSeconds * 0.99)
        }
    }
}

extension Duration {
    fileprivate func seconds(atLeast seconds: Double) -> Bool {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18 >= seconds * 0.99
    }
}
