import ArgumentParser
import Foundation
import LaunchBench
import MobileDevice

/// `launchbench devices [--json]`: the attached iPhones and what they are.
struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the attached iPhones: UDID, name, model, iOS version and build, connection.")

    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Print a JSON array (keys: udid, name, productType, modelName, osVersion, buildVersion, connection).")
    var json = false

    func run() async throws {
        connection.apply()
        let listing = try await MobileDeviceDriver().listDevices(reading: nil)
        let devices = listing.devices
        for device in listing.unreadable { Terminal.note(device.message) }
        if json, devices.isEmpty {
            print("[]")
        } else if json {
            let data = try JSONCoding.encoder(pretty: true).encode(devices.map(DeviceRow.init))
            print(String(decoding: data, as: UTF8.self))
        } else {
            var table = TextTable(headers: ["UDID", "NAME", "MODEL", "IOS", "CONNECTION"])
            for device in devices {
                table.append([
                    device.udid, device.name, Self.model(device), "\(device.osVersion) (\(device.buildVersion))",
                    device.connection.rawValue,
                ])
            }
            print(table.render())
        }
        if listing.attached.isEmpty {
            Terminal.note(
                "No devices attached. Connect an iPhone by USB, unlock it and tap Trust; or point --usbmuxd at an "
                    + "emulated lab (`launchbench emulator`).")
        }
    }

    /// `iPhone 11 (iPhone12,1)`, or just the identifier when the catalog does not know it.
    static func model(_ device: DeviceInfo) -> String {
        device.modelName == device.productType ? device.productType : "\(device.modelName) (\(device.productType))"
    }

    /// The `--json` object: exactly these keys.
    struct DeviceRow: Encodable {
        var udid: String
        var name: String
        var productType: String
        var modelName: String
        var osVersion: String
        var buildVersion: String
        var connection: String

        init(_ device: DeviceInfo) {
            udid = device.udid
            name = device.name
            productType = device.productType
            modelName = device.modelName
            osVersion = device.osVersion
            buildVersion = device.buildVersion
            connection = device.connection.rawValue
        }
    }
}
