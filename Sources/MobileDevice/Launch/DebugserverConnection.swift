import LaunchBench

/// A connection to debugserver that `LaunchRun` drives: lockdown's service connection through
/// libimobiledevice (`DebugserverClient`), or a TCP connection to a forwarder on 127.0.0.1 such as
/// `pymobiledevice3 developer debugserver start-server` (`ForwardedDebugserverConnection`).
/// The launch loop, packet reader and everything after are the same for both.
protocol DebugserverConnection: AnyObject {
    /// Sends a command and returns its reply, waiting up to `timeout`.
    func sendCommand(_ name: String, argument: String?, timeout: Duration) throws -> String
    /// `QEnvironmentHexEncoded:` for one `NAME=VALUE`.
    func setEnvironment(_ assignment: String) throws -> String
    /// The `A` packet: argv[0] is the executable's path on the device.
    func setArguments(_ arguments: [String], timeout: Duration) throws -> String
    /// Sends one framed packet as is.
    func send(packet payload: String) throws
    /// Acknowledges a received packet (`+`).
    func acknowledge() throws
    /// Reads what arrived within `timeoutMilliseconds` (> 0).
    func read(timeoutMilliseconds: UInt32) -> DebugserverRead
    /// Who closes the connection when it breaks, for error texts (e.g. "debugserver").
    var peerDescription: String { get }
}

extension DebugserverConnection {
    func command(_ name: String, argument: String? = nil, timeout: Duration = .seconds(10)) throws -> String {
        try sendCommand(name, argument: argument, timeout: timeout)
    }
}

/// What one raw read produced.
enum DebugserverRead {
    case bytes([UInt8])
    /// Nothing within the timeout.
    case idle
    /// The connection is gone; the text says which call saw it.
    case closed(String)
}
