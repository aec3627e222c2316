/// The bytes between us and debugserver: lockdown's service connection (`DeviceServiceConnection`, TLS on
/// iOS 14+) or a TCP connection to a forwarder on 127.0.0.1 such as `pymobiledevice3 developer
/// debugserver start-server` (`LoopbackTCPTransport`). `GDBRemoteClient` frames the packets, so the
/// launch loop is the same for both.
protocol DebugserverTransport: AnyObject {
    /// Sends all of `bytes`.
    func write(_ bytes: [UInt8]) throws
    /// Reads what arrived within `timeoutMilliseconds` (> 0).
    func read(timeoutMilliseconds: UInt32) -> DebugserverRead
    /// Who closes the connection when it breaks, for error texts (e.g. "debugserver").
    var peerDescription: String { get }
}

/// What one raw read produced.
enum DebugserverRead {
    case bytes([UInt8])
    /// Nothing within the timeout.
    case idle
    /// The connection is gone; the text says which call saw it.
    case closed(String)
}
