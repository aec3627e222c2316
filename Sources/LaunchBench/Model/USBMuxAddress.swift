/// Where usbmuxd is, or where an emulated lab listens for usbmuxd clients: a unix socket or a TCP
/// `host:port` (a remote device lab). One parser for both sides; only the meaning of port 0 differs.
package enum USBMuxAddress: Sendable, Hashable, CustomStringConvertible {
    /// A unix-domain stream socket at this path.
    case unix(path: String)
    /// A TCP address; port 0 (listeners only) picks a free port.
    case tcp(host: String, port: Int)

    /// The environment variable libusbmuxd reads on every connect (and pymobiledevice3 too).
    package static let environmentVariable = "USBMUXD_SOCKET_ADDRESS"

    /// The system daemon's socket, used when nothing else is configured.
    package static let systemSocketPath = "/var/run/usbmuxd"

    /// Parses the `USBMUXD_SOCKET_ADDRESS` syntax: `UNIX:/path`, `host:port` or `[v6]:port` (the last
    /// colon separates the port, as libusbmuxd does).
    /// - Parameter anyPort: accept port 0, "any free port", which only a listener can use; a client
    ///   address needs 1–65535.
    /// - Returns: `nil` for what libusbmuxd would not parse (and so silently replace by the system daemon).
    package init?(_ text: String, anyPort: Bool = false) {
        if text.hasPrefix("UNIX:") {
            let path = String(text.dropFirst(5))
            guard !path.isEmpty else { return nil }
            self = .unix(path: path)
            return
        }
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.allSatisfy(\.isASCII), let port = Int(portText),
            ((anyPort ? 0 : 1)...65535).contains(port)
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(" ") else { return nil }
        self = .tcp(host: host, port: port)
    }

    /// The value for `USBMUXD_SOCKET_ADDRESS`: `UNIX:/path`, `host:port` or `[v6]:port`.
    package var description: String {
        switch self {
        case .unix(let path): return "UNIX:\(path)"
        case .tcp(let host, let port): return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }
    }
}
