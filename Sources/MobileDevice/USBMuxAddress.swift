#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where libusbmuxd finds usbmuxd: a unix socket or a TCP `host:port` (a remote device lab).
public enum USBMuxAddress: Sendable, Hashable, CustomStringConvertible {
    case unix(path: String)
    case tcp(host: String, port: Int)

    /// The system daemon's socket, used when nothing else is configured.
    public static let systemSocketPath = "/var/run/usbmuxd"

    /// Parses the `USBMUXD_SOCKET_ADDRESS` syntax: `UNIX:/path`, `host:port` or `[v6]:port`.
    public init?(_ text: String) {
        if text.hasPrefix("UNIX:") {
            let path = String(text.dropFirst(5))
            guard !path.isEmpty else { return nil }
            self = .unix(path: path)
            return
        }
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.allSatisfy(\.isASCII), let port = Int(portText), (1...65535).contains(port)
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self = .tcp(host: host, port: port)
    }

    /// The value for `USBMUXD_SOCKET_ADDRESS`.
    public var description: String {
        switch self {
        case .unix(let path): return "UNIX:\(path)"
        case .tcp(let host, let port): return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }
    }
}

extension USBMuxAddress {
    /// The environment variable libusbmuxd reads on every connect.
    public static let environmentVariable = "USBMUXD_SOCKET_ADDRESS"

    /// The address libusbmuxd will use now: `USBMUXD_SOCKET_ADDRESS` when it parses, else `nil` (the system daemon).
    public static var configured: USBMuxAddress? {
        guard let raw = getenv(environmentVariable) else { return nil }
        return USBMuxAddress(String(cString: raw))
    }

    /// Points this process's libimobiledevice at `address` (or back at the system daemon for `nil`).
    /// Call it before the first device call, while no other thread uses the library: it sets the
    /// process environment.
    public static func use(_ address: USBMuxAddress?) {
        if let address {
            setenv(environmentVariable, address.description, 1)
        } else {
            unsetenv(environmentVariable)
        }
    }
}
