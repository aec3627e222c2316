import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import MobileDevice

/// Listing and lockdown values through the real libimobiledevice, against the shared emulated lab.
@Suite(.tags(.emulator), .timeLimit(.minutes(5))) struct DeviceListTests {
    @Test func listsThreeEmulatedDevicesWithTheirValues() async throws {
        let specs = [("iPhone12,1", "14.8"), ("iPhone10,3", "13.7"), ("iPhone14,5", "15.7")]
        var devices: [EmulatedDevice] = []
        for (model, version) in specs {
            devices.append(try await SharedTestLab.addDevice(productType: model, osVersion: version))
        }
        defer { for device in devices { Task { await SharedTestLab.removeDevice(device) } } }

        let listed = try await MobileDeviceDriver().listDevices(reading: nil).devices
        for device in devices {
            let info = try #require(listed.first { $0.udid == device.udid })
            #expect(info.name == device.spec.name)
            #expect(info.productType == device.spec.productType)
            #expect(info.osVersion == device.spec.osVersion)
            #expect(info.buildVersion == device.spec.buildVersion)
            #expect(info.connection == .usb)
        }
        let models = devices.compactMap { device in listed.first { $0.udid == device.udid }?.modelName }
        #expect(models == ["iPhone 11", "iPhone X", "iPhone 13"])
    }

    @Test func aDeviceStartingUpIsUnreadableAndNeverFailsTheListing() async throws {
        let ready = try await SharedTestLab.addDevice()
        let booting = try await SharedTestLab.addDevice()
        defer { for device in [ready, booting] { Task { await SharedTestLab.removeDevice(device) } } }
        booting.isStartingUp = true
        let driver = MobileDeviceDriver()

        let listing = try await driver.listDevices(reading: [ready.udid, booting.udid])
        #expect(listing.devices.map(\.udid) == [ready.udid])
        #expect(listing.unreadable.map(\.udid) == [booting.udid])
        #expect(listing.attached.contains(booting.udid))
        let reason = try #require(listing.unreadable.first?.reason)
        #expect(reason.contains("lockdown") || reason.contains("usbmux"), "\(reason)")
        // Only the devices asked for are read.
        let only = try await driver.listDevices(reading: [ready.udid])
        #expect(only.devices.map(\.udid) == [ready.udid] && only.unreadable.isEmpty)
        // Listing everything goes on without it; once it has started it is read again.
        let all = try await driver.listDevices(reading: nil).devices
        #expect(all.contains { $0.udid == ready.udid } && !all.contains { $0.udid == booting.udid })
        booting.isStartingUp = false
        #expect(try await driver.listDevices(reading: [booting.udid]).devices.map(\.udid) == [booting.udid])
    }

    @Test(.timeLimit(.minutes(2)))
    func listingWhileADeviceKeepsRebootingNeverThrows() async throws {
        let steady = try await SharedTestLab.addDevice()
        let flapping = try await SharedTestLab.addDevice()
        defer { for device in [steady, flapping] { Task { await SharedTestLab.removeDevice(device) } } }
        let lab = try await SharedTestLab.lab()
        let reboots = lab.keepRebooting(flapping, times: 300, pause: .milliseconds(3))
        defer { reboots.cancel() }
        let driver = MobileDeviceDriver()
        for _ in 0..<25 {
            let listing = try await driver.listDevices(reading: nil)
            #expect(listing.devices.contains { $0.udid == steady.udid })
        }
        reboots.cancel()
        _ = await reboots.value
    }

    @Test func readsOneDevice() async throws {
        try await SharedTestLab.withDevice(productType: "iPhone13,2", osVersion: "15.7", name: "Ana’s iPhone ✓") {
            device in
            let info = try await MobileDeviceDriver().deviceInfo(udid: device.udid)
            #expect(info.name == "Ana’s iPhone ✓")
            #expect(info.productType == "iPhone13,2")
            #expect(info.modelName == "iPhone 12")
        }
    }

    @Test func unknownUDIDGivesTheMappedErrorWithTheAttachedOnes() async throws {
        try await SharedTestLab.withDevice { device in
            let driver = MobileDeviceDriver()
            let missing = "00008030-0000000000000BAD"
            await #expect {
                try await driver.deviceInfo(udid: missing)
            } throws: { error in
                guard case DeviceError.deviceNotFound(let udid, let attached) = error else { return false }
                return udid == missing && attached.contains(device.udid)
            }
            // The operations that need a device say the same.
            await #expect {
                try await driver.uninstall(bundleID: "com.example.none", on: missing)
            } throws: { error in
                guard case DeviceError.deviceNotFound(let udid, _) = error else { return false }
                return udid == missing
            }
        }
    }

    @Test func detachedDeviceIsNotListed() async throws {
        try await SharedTestLab.withDevice { device in
            let lab = try await SharedTestLab.lab()
            try lab.detach(udid: device.udid)
            let listed = try await MobileDeviceDriver().listDevices(reading: nil).devices
            #expect(!listed.contains { $0.udid == device.udid })
            try lab.attach(udid: device.udid)
            let again = try await MobileDeviceDriver().listDevices(reading: nil).devices
            #expect(again.contains { $0.udid == device.udid })
        }
    }
}
