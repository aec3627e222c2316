import Foundation
import LaunchBench

/// The values lockdown answers `GetValue` with, per domain (`""` = the top level), typed as on a real device.
struct LockdownValues {
    private(set) var domains: [String: [String: Any]]

    init(spec: EmulatedDeviceSpec) {
        let hardware = HardwareProfile.of(spec.productType)
        let digest = Self.digest(of: spec.udid)
        let wifi = Self.macAddress(digest, salt: 0)
        var top: [String: Any] = [
            "ActivationState": "Activated",
            "ActivationStateAcknowledged": true,
            "BasebandVersion": "3.01.02",
            "BluetoothAddress": Self.macAddress(digest, salt: 1),
            "BoardId": 4,
            "BuildVersion": spec.buildVersion,
            "CPUArchitecture": hardware.cpuArchitecture,
            "ChipID": hardware.chipID,
            "DeviceClass": "iPhone",
            "DeviceColor": "1",
            "DeviceName": spec.name,
            "FirmwareVersion": "iBoot-6723.140.2",
            "HardwareModel": hardware.hardwareModel,
            "HardwarePlatform": "t\(String(hardware.chipID, radix: 16))",
            "HasSiDP": true,
            "HostAttached": true,
            "ModelNumber": hardware.modelNumber,
            "PasswordProtected": false,
            "ProductName": "iPhone OS",
            "ProductType": spec.productType,
            "ProductVersion": spec.osVersion,
            "ProductionSOC": true,
            "ProtocolVersion": "2",
            "RegionInfo": "LL/A",
            "SerialNumber": Self.serialNumber(digest),
            "TelephonyCapability": true,
            "TimeIntervalSince1970": Date().timeIntervalSince1970,
            "TimeZone": "America/Los_Angeles",
            "TimeZoneOffsetFromUTC": -28800.0,
            "TrustedHostAttached": true,
            "UniqueChipID": Int(digest & 0x000F_FFFF_FFFF_FFFF),
            "UniqueDeviceID": spec.udid,
            "Uses24HourClock": false,
            "WiFiAddress": wifi,
        ]
        top["HumanReadableProductVersionString"] = spec.osVersion
        domains = [
            "": top,
            "com.apple.disk_usage": [
                "TotalDiskCapacity": 64_000_000_000, "TotalDataCapacity": 52_000_000_000,
                "TotalDataAvailable": 31_000_000_000, "AmountDataAvailable": 31_000_000_000,
            ],
            "com.apple.mobile.battery": [
                "BatteryCurrentCapacity": 100, "BatteryIsCharging": false, "ExternalChargeCapable": true,
                "ExternalConnected": true, "FullyCharged": true,
            ],
            "com.apple.international": ["Language": "en", "Locale": "en_US", "Keyboard": "en_US"],
            "com.apple.mobile.wireless_lockdown": ["EnableWifiConnections": false],
            "com.apple.xcode.developerdomain": ["DeveloperStatus": "Development"],
        ]
        // Developer Mode arrived with iOS 16; the emulated device has it on.
        if let major = Int(spec.osVersion.prefix { $0 != "." }), major >= 16 {
            domains["com.apple.security.mac.amfi"] = ["DeveloperModeStatus": true]
        }
    }

    /// A value; with no key, the whole domain. `nil` when missing.
    func value(domain: String?, key: String?) -> Any? {
        guard let values = domains[domain ?? ""] else { return nil }
        guard let key else { return values }
        return values[key]
    }

    mutating func set(_ value: Any, domain: String?, key: String) {
        domains[domain ?? "", default: [:]][key] = value
    }

    mutating func remove(domain: String?, key: String) {
        domains[domain ?? ""]?[key] = nil
    }

    // The same UDID always yields the same serial and addresses.
    private static func digest(of text: String) -> UInt64 { stableHash(text) }

    private static func macAddress(_ digest: UInt64, salt: UInt64) -> String {
        let bits = (digest &+ salt &* 0x9E37_79B9_7F4A_7C15) & 0xFFFF_FFFF_FFFF
        let bytes = (0..<6).map { UInt8(truncatingIfNeeded: bits >> (8 * (5 - UInt64($0)))) }
        // Locally administered, unicast: never collides with a real vendor prefix.
        let first = (bytes[0] & 0xFC) | 0x02
        return ([first] + bytes.dropFirst()).map { String(format: "%02x", $0) }.joined(separator: ":")
    }

    private static func serialNumber(_ digest: UInt64) -> String {
        let alphabet = Array("0123456789ABCDEFGHJKLMNPQRSTUVWXYZ")
        var value = digest
        var serial = "F"
        for _ in 0..<11 {
            serial.append(alphabet[Int(value % UInt64(alphabet.count))])
            value /= UInt64(alphabet.count)
        }
        return serial
    }
}
