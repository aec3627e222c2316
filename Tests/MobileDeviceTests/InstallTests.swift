import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import MobileDevice

/// Install and uninstall through AFC + installation_proxy, real libimobiledevice against the shared lab.
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(5))) struct InstallTests {
    @Test func installsAnAppFolderWithItsSymlinks() async throws {
        let app = try TestApps.app(symlink: true)
        defer { TestApps.remove(app) }
        try await SharedTestLab.withDevice { device in
            let driver = MobileDeviceDriver()
            try await driver.install(app, on: device.udid, timeout: .seconds(60))
            let installed = try #require(device.services.app(app.bundleID))
            #expect(installed.executable == "Sample")
            let staged = device.services.mediaRoot.appendingPathComponent("PublicStaging/Sample.app")
            let link = try? FileManager.default.destinationOfSymbolicLink(
                atPath: staged.appendingPathComponent("Frameworks/Current").path)
            let stagedInfo = staged.appendingPathComponent("Info.plist")
            // installd may consume the staged copy; when it is still there it must be complete.
            if FileManager.default.fileExists(atPath: stagedInfo.path) {
                #expect(link == "SampleKit.framework")
                #expect(
                    FileManager.default.contents(atPath: stagedInfo.path)
                        == FileManager.default.contents(atPath: app.url.appendingPathComponent("Info.plist").path))
            }
        }
    }

    @Test func installsAnIPA() async throws {
        let folder = try TestApps.app()
        defer { TestApps.remove(folder) }
        let ipa = try TestApps.ipa(from: folder)
        #expect(ipa.packaging == .ipa)
        try await SharedTestLab.withDevice { device in
            try await MobileDeviceDriver().install(ipa, on: device.udid, timeout: .seconds(60))
            #expect(device.services.app(ipa.bundleID) != nil)
        }
    }

    @Test func uninstallRemovesTheAppAndSucceedsWhenItIsNotThere() async throws {
        let app = try TestApps.app()
        defer { TestApps.remove(app) }
        try await SharedTestLab.withDevice { device in
            let driver = MobileDeviceDriver()
            try await driver.uninstall(bundleID: app.bundleID, on: device.udid)  // not installed: fine
            try await driver.install(app, on: device.udid, timeout: .seconds(60))
            #expect(device.services.app(app.bundleID) != nil)
            try await driver.uninstall(bundleID: app.bundleID, on: device.udid)
            #expect(device.services.app(app.bundleID) == nil)
            // Reinstall after uninstall: the cold-start cycle the runner repeats.
            try await driver.install(app, on: device.udid, timeout: .seconds(60))
            #expect(device.services.app(app.bundleID) != nil)
        }
    }

    @Test func installdsErrorReachesTheUserVerbatim() async throws {
        let description =
            "Failed to verify code signature of /private/var/installd/Library/Caches/com.apple.mobile.installd.staging/"
            + "temp.x/extracted/Payload/Sample.app : 0xe8008015 (A valid provisioning profile for this executable was "
            + "not found.)"
        let app = try TestApps.app(
            profile: AppProfile(
                install: InstallBehaviour(
                    failure: InstallFailure(
                        error: "ApplicationVerificationFailed", description: description, detail: 0xE800_8015))))
        defer { TestApps.remove(app) }
        try await SharedTestLab.withDevice(name: "Bench iPhone") { device in
            await #expect {
                try await MobileDeviceDriver().install(app, on: device.udid, timeout: .seconds(60))
            } throws: { error in
                guard let error = error as? DeviceError,
                    case .installFailed(.install, let bundleID, let udid, let name, let code, let text, _) = error
                else { return false }
                let message = error.errorDescription ?? ""
                return bundleID == app.bundleID && udid == device.udid && name == "Bench iPhone"
                    && code == "ApplicationVerificationFailed" && text == description
                    && message.contains(description) && message.contains("Bench iPhone")
                    && error.failureKind == .installFailed
            }
        }
    }
}

/// installd's asynchronous completion: waiting ends early on detach and at the time limit.
@Suite(.tags(.emulator), .timeLimit(.minutes(5))) struct InstallWaitTests {
    /// An install that takes 10 real seconds in the shared lab (its time scale is 0.01).
    static let slowInstall = AppProfile(install: InstallBehaviour(delayMs: 1_000_000))

    @Test func aDetachDuringTheInstallEndsTheWaitAsDeviceLost() async throws {
        let app = try TestApps.app(profile: Self.slowInstall)
        defer { TestApps.remove(app) }
        try await SharedTestLab.withDevice { device in
            let lab = try await SharedTestLab.lab()
            let install = Task { try await MobileDeviceDriver().install(app, on: device.udid, timeout: .seconds(60)) }
            try await Task.sleep(for: .seconds(1))
            try lab.detach(udid: device.udid)
            await #expect {
                try await install.value
            } throws: { error in
                (error as? DeviceError)?.failureKind == .deviceLost
            }
            // The wait stopped at the detach, before installd could have completed.
            #expect(device.services.app(app.bundleID) == nil)
            try lab.attach(udid: device.udid)
        }
    }

    @Test func aSlowInstallTimesOutNamingTheLastStep() async throws {
        let app = try TestApps.app(profile: Self.slowInstall)
        defer { TestApps.remove(app) }
        try await SharedTestLab.withDevice { device in
            await #expect {
                try await MobileDeviceDriver().install(app, on: device.udid, timeout: .seconds(2))
            } throws: { error in
                guard case DeviceError.timedOut(let operation, let udid, let seconds) = error else { return false }
                return udid == device.udid && operation.contains("install of \(app.bundleID)") && seconds == 2
            }
        }
    }
}
