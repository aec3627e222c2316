/// Where an emulated lab accepts usbmuxd clients.
public enum EmulatorAddress: Sendable, Hashable, CustomStringConvertible {
    /// A unix-domain stream socket at this path (at most 103 bytes).
    case unix(path: String)
    /// A TCP listener; port 0 picks a free port (the lab reports the bound one).
    case tcp(host: String, port: Int)

    /// The value for `USBMUXD_SOCKET_ADDRESS`: `UNIX:/path` or `host:port` (`[v6]:port`).
    public var usbmuxdSocketAddress: String {
        switch self {
        case .unix(let path): return "UNIX:\(path)"
        case .tcp(let host, let port): return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }
    }

    public var description: String { usbmuxdSocketAddress }

    /// Parses `HOST:PORT` or `[V6]:PORT` (the last colon separates the port, as libusbmuxd does).
    public init?(hostAndPort text: String) {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.allSatisfy(\.isASCII), let port = Int(portText), (0...65535).contains(port)
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(" ") else { return nil }
        self = .tcp(host: host, port: port)
    }
}
