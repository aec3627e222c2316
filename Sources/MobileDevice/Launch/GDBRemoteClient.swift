import LaunchBench

/// Our side of the GDB remote serial protocol, framed as libimobiledevice 1.3.0's debugserver client
/// frames it (PROTOCOLS §7.2): arguments hex-encoded in upper case and appended to the command, `A`
/// as `A<hex length>,<index>,<hex>,…`. Ack mode (each reply acknowledged with `+`) until
/// `startNoAckMode()` succeeds, as LLDB does; only then are packets sent back to back (`pipeline`).
/// `LaunchRun` drives it over either transport.
final class GDBRemoteClient {
    let udid: String
    private let transport: any DebugserverTransport
    /// Bytes read while waiting for a reply that belong to what comes after it.
    private var reader = GDBPacketReader()
    /// Whether replies are acknowledged with `+` (until debugserver agrees to `QStartNoAckMode`).
    private(set) var acknowledges = true

    /// One command of a `pipeline`: its packet, a name for error texts, and how long its reply may take.
    struct Command {
        let packet: String
        let name: String
        var timeout: Duration = .seconds(10)
    }

    init(transport: any DebugserverTransport, udid: String) {
        self.transport = transport
        self.udid = udid
    }

    var peerDescription: String { transport.peerDescription }

    /// Sends a command and returns its reply, waiting up to `timeout`.
    func command(_ name: String, argument: String? = nil, timeout: Duration = .seconds(10)) throws -> String {
        try send(packets: argument.map { Self.packet(name, argument: $0) } ?? name)
        return try reply(to: name, timeout: timeout)
    }

    /// The reply to a command already sent (with others, by `send(packets:)`).
    func command(awaitingReplyTo name: String, timeout: Duration = .seconds(10)) throws -> String {
        try reply(to: name, timeout: timeout)
    }

    /// Asks debugserver to stop acknowledging (LLDB's first packet; debugserver has supported it for
    /// as long as LLDB has). `false` when it does not (an empty reply): ack mode stays, nothing breaks.
    func startNoAckMode() throws -> Bool {
        let agreed = try command("QStartNoAckMode") == "OK"
        if agreed { acknowledges = false }
        return agreed
    }

    /// Sends the commands and returns their replies in order. Without acks they go out in one write
    /// and debugserver answers them one after another from its queue, so a launch's setup costs one
    /// round trip instead of one per packet (unverified on a real phone: LLDB sends one at a time). In
    /// ack mode, one at a time, as libimobiledevice does.
    func pipeline(_ commands: [Command]) throws -> [String] {
        if acknowledges {
            return try commands.map { command in
                try send(packets: command.packet)
                return try reply(to: command.name, timeout: command.timeout)
            }
        }
        try send(packets: commands.map(\.packet))
        return try commands.map { try reply(to: $0.name, timeout: $0.timeout) }
    }

    /// `QEnvironmentHexEncoded:` for one `NAME=VALUE` (any bytes but NUL survive the hex encoding).
    static func environmentPacket(_ assignment: String) -> String {
        packet("QEnvironmentHexEncoded:", argument: assignment)
    }

    /// The `A` packet: argv[0] is the executable's path on the device. The lengths are in decimal.
    static func argumentsPacket(_ arguments: [String]) -> String {
        let fields = arguments.enumerated().map { index, argument in
            let hex = Self.hex(argument)
            return "\(hex.utf8.count),\(index),\(hex)"
        }
        return "A" + fields.joined(separator: ",")
    }

    /// A command with its argument hex-encoded in upper case and appended (`QSetWorkingDir:` + path).
    static func packet(_ name: String, argument: String) -> String { name + hex(argument) }

    /// Sends framed packets as they are, in one write.
    func send(packets payloads: String...) throws {
        try send(packets: payloads)
    }

    private func send(packets payloads: [String]) throws {
        try transport.write(payloads.flatMap { GDBRemote.frame($0) })
    }

    /// Acknowledges a received packet (in ack mode; a no-op after `QStartNoAckMode`). debugserver
    /// waits for this `+` before it sends the next packet.
    func acknowledge() throws {
        guard acknowledges else { return }
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
