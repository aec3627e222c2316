/// The devices attached now, as a driver could read them.
///
/// On a device lab a phone may be restarting or unplugged while its values are read; such a device is
/// listed in `unreadable` (with the reason) instead of failing the whole listing, so one phone never
/// stops the others.
package struct DeviceListing: Sendable, Hashable {
    /// Devices whose values were read, in the driver's order.
    package var devices: [DeviceInfo]
    /// Attached devices whose values could not be read.
    package var unreadable: [UnreadableDevice]
    /// Every attached UDID, read or not (for "attached: …" in errors).
    package var attached: [String]

    /// A listing; `attached` defaults to the UDIDs of `devices` and `unreadable`.
    package init(devices: [DeviceInfo], unreadable: [UnreadableDevice] = [], attached: [String]? = nil) {
        self.devices = devices
        self.unreadable = unreadable
        self.attached = attached ?? devices.map(\.udid) + unreadable.map(\.udid)
    }
}

/// An attached device whose name, model and iOS version could not be read.
package struct UnreadableDevice: Sendable, Hashable {
    /// The device's UDID.
    package var udid: String
    /// Why, in words (e.g. the library error while it was restarting).
    package var reason: String

    /// `udid` could not be read, for `reason`.
    package init(udid: String, reason: String) {
        self.udid = udid
        self.reason = reason
    }

    /// The line a command prints on stderr.
    package var message: String {
        "Device \(udid) was skipped: its values could not be read (\(reason)). It may be restarting or was "
            + "unplugged; run again once it is back (`launchbench devices` lists it)."
    }
}
