import DeviceEmulator
import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import MobileDevice

/// Listing and lockdown values through the real libimobiledevice, against the shared emulated lab.
@Suite struct DeviceListTests {
    @Test func listsThreeEmulatedDevicesWithTheirValues() async throws {
        let specs = [("iPhone12,1", "14.8"), ("iPhone10,3", "13.7"), ("iPhone14,5", "15.7")]
        var devices: [EmulatedDevice] = []
        for (model, version) in specs {
            devices.append(try await SharedTestLab.addDevice(productType: model, osVersion: version))
        }
        defer { for device in devices { Task { await SharedTestLab.removeDevice(device) } } }

        let listed = try await MobileDeviceDriver().listDevices()
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
            let listed = try await MobileDeviceDriver().listDevices()
            #expect(!listed.contains { $0.udid == device.udid })
            try lab.attach(udid: device.udid)
            let again = try await MobileDeviceDriver().listDevices()
            #expect(again.contains { $0.udid == device.udid })
        }
    }
}
