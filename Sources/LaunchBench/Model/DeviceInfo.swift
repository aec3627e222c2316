/// One attached iPhone (or emulated one) as the tool reports it.
package struct DeviceInfo: Sendable, Hashable, Codable {
    /// How the device reaches usbmuxd.
    package enum Connection: String, Sendable, Codable {
        case usb = "USB"
        case network = "Network"
    }

    /// The device's UDID.
    package var udid: String
    /// The name the owner gave it (`DeviceName`).
    package var name: String
    /// Apple's model identifier, e.g. `iPhone12,1`.
    package var productType: String
    /// iOS version as lockdown reports it, e.g. `14.8`.
    package var osVersion: String
    /// iOS build, e.g. `18H17`.
    package var buildVersion: String
    /// USB or network.
    package var connection: Connection

    /// A device's values as lockdown reports them.
    package init(
        udid: String, name: String, productType: String, osVersion: String, buildVersion: String,
        connection: Connection = .usb
    ) {
        self.udid = udid
        self.name = name
        self.productType = productType
        self.osVersion = osVersion
        self.buildVersion = buildVersion
        self.connection = connection
    }

    /// Marketing name of the model (`iPhone 11`), or the identifier when the catalog does not know it.
    package var modelName: String { DeviceModels.marketingName(for: productType) }

    /// The parsed iOS version; `nil` when lockdown reported something unreadable.
    package var version: OSVersion? { OSVersion(osVersion) }
}

/// A hot-plug event from usbmuxd.
package enum DeviceEvent: Sendable, Hashable {
    /// usbmuxd now reports the device with this UDID (plugged in, or back after a restart).
    case attached(udid: String)
    /// usbmuxd no longer reports the device with this UDID (unplugged, or restarting).
    case detached(udid: String)
}
