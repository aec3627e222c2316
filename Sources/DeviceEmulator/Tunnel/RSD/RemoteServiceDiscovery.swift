import Foundation

/// What the device's RemoteServiceDiscovery tells a client in its handshake reply: who it is and which
/// services listen on which port inside the tunnel (IOS17-TUNNEL.md §1.7).
struct RemoteServiceDiscoveryInfo: Equatable {
    static let debugProxyName = "com.apple.internal.dt.remote.debugproxy"

    var udid: String
    var productType: String
    var osVersion: String
    var buildVersion: String
    var uniqueChipID: UInt64
    /// Service name → port inside the tunnel.
    var services: [String: UInt16]

    /// The device's identity, with debugproxy on `debugProxyPort` and the instruments server on
    /// `instrumentsPort` unless its Developer Disk Image is not mounted (a real phone then lists neither:
    /// unverified, see Documentation/RealPhoneStatus.md).
    init(device: EmulatedDevice, debugProxyPort: UInt16, instrumentsPort: UInt16) {
        udid = device.udid
        productType = device.spec.productType
        osVersion = device.spec.osVersion
        buildVersion = device.spec.buildVersion
        uniqueChipID = (device.lockdownValue(domain: nil, key: "UniqueChipID") as? Int).map { UInt64($0) } ?? 0
        services =
            device.services.developerDiskImageMounted
            ? [Self.debugProxyName: debugProxyPort, InstrumentsService.remoteName: instrumentsPort] : [:]
    }

    init(
        udid: String, productType: String, osVersion: String, buildVersion: String, uniqueChipID: UInt64,
        services: [String: UInt16]
    ) {
        self.udid = udid
        self.productType = productType
        self.osVersion = osVersion
        self.buildVersion = buildVersion
        self.uniqueChipID = uniqueChipID
        self.services = services
    }

    /// The handshake reply's dictionary, shaped like a real iOS 17 phone's (go-ios `ios/rsd_test.go`):
    /// each service's `Port` is a decimal string.
    var handshakeReply: XPCObject {
        let services = self.services.sorted { $0.key < $1.key }.map { name, port -> (String, XPCObject) in
            (
                name,
                .dictionary([
                    ("Entitlement", .string("com.apple.private.CoreDevice.canDebugApplicationsOnDevice")),
                    ("Port", .string(String(port))),
                    (
                        "Properties",
                        .dictionary([
                            (
                                "Features",
                                .array(
                                    name == Self.debugProxyName
                                        ? [.string("com.apple.coredevice.feature.debugserverproxy")] : [])
                            ),
                            ("ServiceVersion", .int64(1)),
                            ("UsesRemoteXPC", .bool(true)),
                        ])
                    ),
                ])
            )
        }
        return .dictionary([
            ("MessageType", .string("Handshake")),
            ("MessagingProtocolVersion", .uint64(7)),
            ("UUID", .uuid(Self.stableUUID(udid))),
            (
                "Properties",
                .dictionary([
                    ("BuildVersion", .string(buildVersion)),
                    ("OSVersion", .string(osVersion)),
                    ("ProductType", .string(productType)),
                    ("RemoteXPCVersionFlags", .uint64(0x0100_0000_0000_0006)),
                    ("UniqueChipID", .uint64(uniqueChipID)),
                    ("UniqueDeviceID", .string(udid)),
                ])
            ),
            ("Services", .dictionary(services)),
        ])
    }

    /// The same UUID for the same device on every connection, as a phone's RSD keeps one per boot.
    static func stableUUID(_ udid: String) -> UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        for (index, byte) in udid.utf8.enumerated() { bytes[index % 16] = bytes[index % 16] &* 31 &+ byte }
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4 layout
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
