import ArgumentParser
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice

/// `launchbench devices [--json]`: the attached iPhones, what they are, which engine launches on each
/// and why, and whether Developer Mode and the Developer Disk Image are ready.
struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the attached iPhones: UDID, name, model, iOS, connection, launch engine and readiness.")

    @OptionGroup var connection: ConnectionOptions

    @OptionGroup(title: "Launch engine") var engines: EngineOptions

    @Flag(
        help: ArgumentHelp(
            "Print a JSON array (keys: udid, name, productType, modelName, osVersion, buildVersion, connection, "
                + "engine, engineReason, transport (iOS 17+ through pymobiledevice3), developerMode, diskImage, "
                + "assumedFromIOS26 (iOS 27+: what is assumed from iOS 26 there))."))
    var json = false

    func run() async throws {
        let usbmuxd = connection.apply()
        let base = MobileDeviceDriver()
        let setup = engines.setup(usbmuxd: usbmuxd)
        let listing = try await base.listDevices(reading: nil)
        let devices = listing.devices
        for device in listing.unreadable { Terminal.note(device.message) }
        var rows: [DeviceRow] = []
        for device in devices {
            let decision = setup.router.decision(for: device)
            rows.append(
                DeviceRow(
                    device, engine: decision, transport: setup.transport(for: device, decision: decision),
                    readiness: await base.developerReadiness(of: device)))
        }
        if json, devices.isEmpty {
            print("[]")
        } else if json {
            let data = try JSONCoding.encoder(pretty: true).encode(rows)
            print(String(decoding: data, as: UTF8.self))
        } else {
            var table = TextTable(headers: ["UDID", "NAME", "MODEL", "IOS", "CONNECTION", "ENGINE", "DEV MODE", "DDI"])
            for (device, row) in zip(devices, rows) {
                table.append([
                    device.udid, device.name, Self.model(device), "\(device.osVersion) (\(device.buildVersion))",
                    device.connection.rawValue, row.transport.map { "\(row.engine) (\($0))" } ?? row.engine,
                    row.developerMode, row.diskImage,
                ])
            }
            print(table.render())
            for row in rows {
                // The table's cells are kept to one line by TextTable; these lines quote the phone too.
                print(
                    UserText.logLine(
                        "\(row.udid): \(row.engine == "none" ? "no engine" : row.engine) — \(row.engineReason)"))
                for advice in row.advice { print("  " + UserText.logLine(advice)) }
                if let assumed = row.assumedFromIOS26 { print("  " + UserText.logLine(assumed)) }
            }
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

    /// The `--json` object: exactly these keys (all strings).
    struct DeviceRow: Encodable {
        var udid: String
        var name: String
        var productType: String
        var modelName: String
        var osVersion: String
        var buildVersion: String
        var connection: String
        /// A `LaunchEngine` name, or `none` when no engine can launch on the device.
        var engine: String
        /// Why that engine, or what to install when there is none.
        var engineReason: String
        /// How the engine reaches debugserver when not through lockdown: `userspace tunnel` (iOS 17.4+) or
        /// `tunneld` (17.0–17.3.1); absent otherwise.
        var transport: String?
        /// `ready`, `not ready`, `not needed` or `unknown`.
        var developerMode: String
        var diskImage: String
        var advice: [String] = []
        /// iOS 27+: what launchbench assumes from iOS 26 there (`OSVersion.assumedFactsNote`); absent otherwise.
        var assumedFromIOS26: String?

        private enum CodingKeys: String, CodingKey {
            case udid, name, productType, modelName, osVersion, buildVersion, connection, engine, engineReason,
                transport, developerMode, diskImage, assumedFromIOS26
        }

        init(_ device: DeviceInfo, engine decision: EngineDecision, transport: String?, readiness: DeveloperReadiness) {
            udid = device.udid
            name = device.name
            productType = device.productType
            modelName = device.modelName
            osVersion = device.osVersion
            buildVersion = device.buildVersion
            connection = device.connection.rawValue
            engine = decision.engine?.rawValue ?? "none"
            engineReason = decision.explanation
            self.transport = transport
            developerMode = readiness.developerMode.rawValue
            diskImage = readiness.diskImage.rawValue
            advice = readiness.advice
            assumedFromIOS26 = device.version?.assumedFactsNote
        }
    }
}
