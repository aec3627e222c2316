import LaunchBench

/// Our side of the GDB remote serial protocol, framed as libimobiledevice 1.3.0's debugserver client
/// frames it (PROTOCOLS §7.2): arguments hex-encoded in upper case and appended to the command, `A`
/// as `A<hex length>,<index>,<hex>,…`, and ack mode kept (each reply is acknowledged with `+`).
/// `LaunchRun` drives it over either transport.
final class GDBRemoteClient {
    let udid: String
    private let transport: any DebugserverTransport
    /// Bytes read while waiting for a reply that belong to what comes after it.
    private var reader = GDBPacketReader()

    init(transport: any DebugserverTransport, udid: String) {
        self.transport = transport
        self.udid = udid
    }

    var peerDescription: String { transport.peerDescription }

    /// Sends a command and returns its reply, waiting up to `timeout`.
    func command(_ name: String, argument: String? = nil, timeout: Duration = .seconds(10)) throws -> String {
        try send(packet: name + (argument.map { Self.hex($0) } ?? ""))
        return try reply(to: name, timeout: timeout)
    }

    /// `QEnvironmentHexEncoded:` for one `NAME=VALUE` (any bytes but NUL survive the hex encoding).
    func setEnvironment(_ assignment: String) throws -> String {
        try command("QEnvironmentHexEncoded:", argument: assignment)
    }

    /// The `A` packet: argv[0] is the executable's path on the device. The lengths are in decimal.
    func setArguments(_ arguments: [String], timeout: Duration) throws -> String {
        let fields = arguments.enumerated().map { index, argument in
            let hex = Self.hex(argument)
            return "\(hex.utf8.count),\(index),\(hex)"
        }
        try send(packet: "A" + fields.joined(separator: ","))
        return try reply(to: "A", timeout: timeout)
    }

    /// Sends one framed packet as is.
    func send(packet payload: String) throws {
        try transport.write(GDBRemote.frame(payload))
    }

    /// Acknowledges a received packet. debugserver waits for this `+` before it sends the next packet.
    func acknowledge() throws {
        try transport.write(Array("+".utf8))
    }

    /// Reads what arrived within `timeoutMilliseconds`, starting with bytes a reply wait read ahead.
    func read(timeoutMilliseconds: UInt32) -> DebugserverRead {
        let pending = reader.drain()
        if !pending.isEmpty { return .bytes(pending) }
        return transport.read(timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Waits for the reply packet to a command, acknowledging it.
    private func reply(to name: String, timeout: Duration) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let payload = reader.next() {
                try acknowledge()
                return String(decoding: payload, as: UTF8.self)
            }
            guard ContinuousClock.now < deadline else {
                throw DeviceError.timedOut(
                    operation: "debugserver reply to \(name) through \(peerDescription)", udid: udid,
                    seconds: timeout.totalSeconds)
            }
            switch transport.read(timeoutMilliseconds: 100) {
            case .bytes(let bytes): reader.append(bytes)
            case .idle: continue
            case .closed(let reason):
                throw DeviceError.protocolError(
                    operation: "debugserver \(name)", udid: udid,
                    detail: "\(peerDescription) closed the connection before replying (\(reason); is debugserver "
                        + "reachable on the device? its log says more)")
            }
        }
    }

    private static func hex(_ text: String) -> String {
        String(decoding: GDBRemote.hex(Array(text.utf8), uppercase: true), as: UTF8.self)
    }
}
