import LaunchBench

/// The usbmuxd address in the form pymobiledevice3 11.45 reads it, for the sidecar's environment.
///
/// Its `--usbmux` option reads `PYMOBILEDEVICE3_USBMUX`, but the iOS 17.4+ userspace-tunnel path ignores that
/// option and reads `USBMUXD_SOCKET_ADDRESS` itself (`usbmux.py`, `MuxConnection._resolve_usbmux_address`),
/// taking any value with a `:` as `host:port` and anything else as a socket path. libusbmuxd's own
/// `UNIX:/path` form therefore crashes it (`ValueError: invalid literal for int()`), and launchbench's process
/// environment holds exactly that form. So the sidecar gets both variables, in pymobiledevice3's form,
/// whatever the user's environment holds.
package enum Pymobiledevice3USBMux {
    /// The variables to set in the sidecar's environment; empty for the system usbmuxd (`address` nil).
    /// - Throws: ``Unsupported`` for what pymobiledevice3 cannot express: an IPv6 host (it connects over IPv4
    ///   only) or a socket path with a `:` (it would read it as `host:port`).
    package static func environment(for address: USBMuxAddress?) throws(Unsupported) -> [String: String] {
        let value: String
        switch address {
        case nil: return [:]
        case .unix(let path)?:
            guard !path.contains(":") else {
                throw Unsupported(address: address!, reason: "its socket path holds a ':'")
            }
            value = path
        case .tcp(let host, let port)?:
            guard !host.contains(":") else { throw Unsupported(address: address!, reason: "it is an IPv6 address") }
            value = "\(host):\(port)"
        }
        return ["PYMOBILEDEVICE3_USBMUX": value, USBMuxAddress.environmentVariable: value]
    }

    /// A usbmuxd address pymobiledevice3 cannot reach.
    package struct Unsupported: Error, Sendable, Equatable, CustomStringConvertible {
        /// The address as configured.
        package var address: USBMuxAddress
        /// Why pymobiledevice3 cannot use it.
        package var reason: String

        /// What is wrong and what to do instead.
        package var description: String {
            "pymobiledevice3 cannot reach usbmuxd at \(address): \(reason). Expose it at a path without ':' or an "
                + "IPv4 host:port (e.g. socat TCP-LISTEN:27015,fork UNIX-CONNECT:PATH) for iOS 17+ devices."
        }
    }
}
