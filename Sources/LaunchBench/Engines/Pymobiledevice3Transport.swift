/// How pymobiledevice3 reaches a device's services (debugserver for the launch sidecar, instruments for the
/// kdebug helper): the one place the iOS 17 / 17.4 rule is written.
package enum Pymobiledevice3Transport: Sendable, Hashable, CaseIterable {
    /// Through lockdown, as libimobiledevice: up to iOS 16 (and an iOS version that cannot be read).
    case lockdown
    /// Its no-root userspace tunnel to CoreDeviceProxy: iOS 17.4 and later.
    case userspaceTunnel
    /// The root `remote tunneld`: iOS 17.0–17.3.1, which have no CoreDeviceProxy.
    case tunneld

    /// The transport for `device`'s iOS.
    package init(for device: DeviceInfo) {
        guard let version = device.version, !version.offersDebugserver else {
            self = .lockdown
            return
        }
        self = version < OSVersion(17, 4) ? .tunneld : .userspaceTunnel
    }

    /// Whether it goes through an iOS 17+ tunnel.
    package var isTunnel: Bool { self != .lockdown }

    /// The tunnel's name in the `devices` table and `--json` (`nil` through lockdown).
    package var tunnelName: String? {
        switch self {
        case .lockdown: return nil
        case .userspaceTunnel: return "userspace tunnel"
        case .tunneld: return "tunneld"
        }
    }

    /// How debugserver is reached, in the sentence that says why the device gets pymobiledevice3.
    var reachDescription: String {
        switch self {
        case .lockdown, .userspaceTunnel: return "its no-root userspace tunnel to CoreDeviceProxy"
        case .tunneld:
            return "the root tunnel daemon, which iOS 17.0–17.3.1 need: `sudo pymobiledevice3 remote tunneld` "
                + "must be running"
        }
    }
}
