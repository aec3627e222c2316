import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

/// The device services through the REAL Debian clients (ideviceinstaller, idevicedebug,
/// idevicediagnostics, idevice_id) against a private lab; skipped when a tool is missing.
@Suite(.tags(.emulator, .subprocess), .serialized, .timeLimit(.minutes(5))) struct ServiceToolTests {
    static let bundleID = "com.example.launchbench.sample"

    static func spec(_ index: Int, ios: String, model: String = "iPhone6,1") -> EmulatedDeviceSpec {
        .numbered(500 + index, productType: model, osVersion: ios)
    }

    @Test(.enabled(if: ExternalTool.isInstalled("ideviceinstaller"), "ideviceinstaller missing: run Scripts/bootstrap"))
    func ideviceinstallerInstallsTheSampleFolderAndListsIt() async throws {
        let device = Self.spec(1, ios: "14.8", model: "iPhone12,1")
        try await PrivateLab.with(devices: [device]) { lab in
            let install = try await ExternalTool.run(
                "ideviceinstaller", ["-u", device.udid, "-i", FixturePaths.sampleApp.path],
                usbmuxd: lab.usbmuxdSocketAddress)
            #expect(install.exitCode == 0, "\(install.standardOutput)\n\(install.standardError)")
            #expect(install.standardOutput.contains("Complete"), "\(install.standardOutput)")
            let list = try await ExternalTool.run(
                "ideviceinstaller", ["-u", device.udid, "-l"], usbmuxd: lab.usbmuxdSocketAddress)
            #expect(list.exitCode == 0)
            #expect(list.standardOutput.contains(Self.bundleID), "\(list.standardOutput)")
            #expect(list.standardOutput.contains("\"34\""), "\(list.standardOutput)")

            let uninstall = try await ExternalTool.run(
                "ideviceinstaller", ["-u", device.udid, "-U", Self.bundleID], usbmuxd: lab.usbmuxdSocketAddress)
            #expect(uninstall.exitCode == 0, "\(uninstall.standardError)")
            let after = try await ExternalTool.run(
                "ideviceinstaller", ["-u", device.udid, "-l"], usbmuxd: lab.usbmuxdSocketAddress)
            #expect(!after.standardOutput.contains(Self.bundleID))
        }
    }

    @Test(
        .enabled(
            if: ExternalTool.isInstalled("ideviceinstaller") && ExternalTool.isInstalled("zip"),
            "needs ideviceinstaller and zip"))
    func anIPAMadeWithZipInstalls() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("ipa-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.createDirectory(
            at: work.appendingPathComponent("Payload"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: FixturePaths.sampleApp, to: work.appendingPathComponent("Payload/Sample.app"))
        let zip = Process()
        zip.executableURL = URL(fileURLWithPath: try #require(ExternalTool.path(of: "zip")))
        zip.arguments = ["-qr", work.appendingPathComponent("Sample.ipa").path, "Payload"]
        zip.currentDirectoryURL = work
        try zip.run()
        zip.waitUntilExit()
        try #require(zip.terminationStatus == 0)

        let device = Self.spec(2, ios: "12.5.7")
        try await PrivateLab.with(devices: [device]) { lab in
            let install = try await ExternalTool.run(
                "ideviceinstaller", ["-u", device.udid, "-i", work.appendingPathComponent("Sample.ipa").path],
                usbmuxd: lab.usbmuxdSocketAddress)
            #expect(install.exitCode == 0, "\(install.standardOutput)\n\(install.standardError)")
            let app = try #require(lab.device(udid: device.udid)?.services.app(Self.bundleID))
            #expect(app.shortVersion == "1.2")
            #expect(app.bundleImages.count == 3)
        }
    }

    @Test(.enabled(if: ExternalTool.isInstalled("ideviceinstaller"), "ideviceinstaller missing: run Scripts/bootstrap"))
    func aFailingInstallReportsTheDevicesError() async throws {
        let device = Self.spec(3, ios: "14.8", model: "iPhone12,1")
        try await PrivateLab.with(devices: [device]) { lab in
            lab.device(udid: device.udid)?.services.installFailure = InstallFailure(
                description: "No valid provisioning profile")
            let install = try await ExternalTool.run(
                "ideviceinstaller", ["-u", device.udid, "-i", FixturePaths.sampleApp.path],
                usbmuxd: lab.usbmuxdSocketAddress)
            let output = install.standardOutput + install.standardError
            #expect(output.contains("ApplicationVerificationFailed"), "\(output)")
            #expect(lab.device(udid: device.udid)?.services.installedApps.isEmpty == true)
        }
    }

    @Test(
        .enabled(
            if: ExternalTool.isInstalled("idevicedebug") && ExternalTool.isInstalled("ideviceinstaller"),
            "needs idevicedebug"))
    func idevicedebugPrintsTheIOS12StatisticsBlockAndExits() async throws {
        let device = Self.spec(4, ios: "12.5.7")
        try await PrivateLab.with(devices: [device]) { lab in
            let install = try await ExternalTool.run(
                "ideviceinstaller", ["-u", device.udid, "-i", FixturePaths.sampleApp.path],
                usbmuxd: lab.usbmuxdSocketAddress)
            try #require(install.exitCode == 0, "\(install.standardError)")
            let run = try await ExternalTool.run(
                "idevicedebug", ["-u", device.udid, "-e", "DYLD_PRINT_STATISTICS=1", "run", Self.bundleID],
                usbmuxd: lab.usbmuxdSocketAddress, timeout: .seconds(60))
            #expect(run.exitCode != nil, "idevicedebug hung: \(run.standardOutput)")
            let out = run.standardOutput
            #expect(out.contains("Total pre-main time: "), "\(out)\n\(run.standardError)")
            #expect(out.contains("           slowest intializers :"), "\(out)")
            #expect(out.contains("[launchbench] mark=firstFrame t="), "\(out)")
            #expect(out.contains("[launchbench] done"), "\(out)")
            // The first launch after install was cold, the next one is warm.
            #expect(lab.device(udid: device.udid)?.services.app(Self.bundleID) != nil)
        }
    }

    /// iOS 14–16 serve debugserver over TLS (DVTSecureSocketProxy): when the app has exited, the session
    /// must end the way a real debugserver's does (the socket closes, no TLS close_notify), or
    /// idevicedebug 1.3.0 loops on empty reads forever.
    @Test(
        .enabled(
            if: ExternalTool.isInstalled("idevicedebug") && ExternalTool.isInstalled("ideviceinstaller"),
            "needs idevicedebug"))
    func idevicedebugExitsAfterTheAppOverTheSecureService() async throws {
        let device = Self.spec(6, ios: "14.8", model: "iPhone12,1")
        try await PrivateLab.with(devices: [device]) { lab in
            let install = try await ExternalTool.run(
                "ideviceinstaller", ["-u", device.udid, "-i", FixturePaths.sampleApp.path],
                usbmuxd: lab.usbmuxdSocketAddress)
            try #require(install.exitCode == 0, "\(install.standardError)")
            let run = try await ExternalTool.run(
                "idevicedebug", ["-u", device.udid, "run", Self.bundleID],
                usbmuxd: lab.usbmuxdSocketAddress, timeout: .seconds(60))
            #expect(run.exitCode != nil, "idevicedebug hung: \(run.standardOutput)")
            #expect(run.standardOutput.contains("[launchbench] done"), "\(run.standardOutput)")
        }
    }

    @Test(
        .enabled(
            if: ExternalTool.isInstalled("idevicedebug") && ExternalTool.isInstalled("ideviceinstaller"),
            "needs idevicedebug"))
    func idevicedebugIsRefusedOnALockedDeviceAndOnIOS17() async throws {
        let locked = Self.spec(5, ios: "14.8", model: "iPhone12,1")
        let modern = Self.spec(6, ios: "17.5", model: "iPhone15,4")
        try await PrivateLab.with(devices: [locked, modern]) { lab in
            for device in [locked, modern] {
                let install = try await ExternalTool.run(
                    "ideviceinstaller", ["-u", device.udid, "-i", FixturePaths.sampleApp.path],
                    usbmuxd: lab.usbmuxdSocketAddress)
                try #require(install.exitCode == 0, "\(install.standardError)")
            }
            lab.device(udid: locked.udid)?.services.isLocked = true
            let refused = try await ExternalTool.run(
                "idevicedebug", ["-u", locked.udid, "run", Self.bundleID], usbmuxd: lab.usbmuxdSocketAddress)
            #expect(refused.exitCode != 0)
            #expect(
                (refused.standardOutput + refused.standardError).contains("could not be, unlocked"),
                "\(refused.standardOutput)\n\(refused.standardError)")
            let noService = try await ExternalTool.run(
                "idevicedebug", ["-u", modern.udid, "run", Self.bundleID], usbmuxd: lab.usbmuxdSocketAddress)
            #expect(noService.exitCode != 0)
            #expect(!(noService.standardOutput.contains("[launchbench]")))
        }
    }

    @Test(
        .enabled(
            if: ExternalTool.isInstalled("idevicediagnostics") && ExternalTool.isInstalled("idevice_id"),
            "needs idevicediagnostics"))
    func idevicediagnosticsRestartMakesTheDeviceDisappearAndComeBack() async throws {
        let device = Self.spec(7, ios: "14.8", model: "iPhone12,1")
        try await PrivateLab.with(devices: [device], timeScale: 0.01) { lab in
            let services = try #require(lab.device(udid: device.udid)?.services)
            services.bootSeconds = 300  // 3 s real at this time scale: long enough to see the gap
            let restart = try await ExternalTool.run(
                "idevicediagnostics", ["-u", device.udid, "restart"], usbmuxd: lab.usbmuxdSocketAddress)
            #expect(restart.exitCode == 0, "\(restart.standardOutput)\n\(restart.standardError)")
            var sawGone = false
            var sawBack = false
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                let list = try await ExternalTool.run("idevice_id", ["-l"], usbmuxd: lab.usbmuxdSocketAddress)
                let listed = list.lines.contains(device.udid)
                if !listed { sawGone = true }
                if sawGone && listed {
                    sawBack = true
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(sawGone, "the device never disappeared")
            #expect(sawBack, "the device never came back")
        }
    }
}
