import NIOCore

/// The device end of the tunnel's IPv6 network: one address, a few listening TCP ports, and the
/// connections accepted on them. Packets to other addresses and non-TCP packets are dropped (the host
/// sends MLDv2 reports when its interface comes up); a segment to a port nobody listens on gets a RST.
///
/// Confined to the tunnel channel's event loop.
final class TunnelTCPStack {
    /// Called with each connection accepted on a listening port; it installs the connection's callbacks.
    typealias Acceptor = (TunnelTCPConnection) -> Void

    private struct Key: Hashable {
        var localPort: UInt16
        var remotePort: UInt16
    }

    let deviceAddress: IPv6Address
    let hostAddress: IPv6Address
    private let maximumSegmentSize: Int
    private let eventLoop: any EventLoop
    private let output: (ByteBuffer) -> Void
    private var listeners: [UInt16: Acceptor] = [:]
    private var connections: [Key: TunnelTCPConnection] = [:]
    private var nextInitialSequence = UInt32.random(in: .min ... .max)

    /// Packets not taken, by reason: for tests and the emulator's own diagnostics.
    private(set) var dropped: [TunnelPacket.Drop: Int] = [:]

    /// - Parameters:
    ///   - mtu: the tunnel MTU agreed in the handshake; segments are at most `mtu − 60` bytes of data.
    ///   - output: writes one serialized IPv6 packet to the host.
    init(
        deviceAddress: IPv6Address, hostAddress: IPv6Address, mtu: Int, eventLoop: any EventLoop,
        output: @escaping (ByteBuffer) -> Void
    ) {
        self.deviceAddress = deviceAddress
        self.hostAddress = hostAddress
        self.maximumSegmentSize = max(536, mtu - TunnelPacket.ipv6HeaderLength - TCPSegment.minimumHeaderLength)
        self.eventLoop = eventLoop
        self.output = output
    }

    /// Accepts connections on `port` from now on.
    func listen(on port: UInt16, acceptor: @escaping Acceptor) {
        listeners[port] = acceptor
    }

    /// Open connections, for tests and teardown.
    var openConnections: [TunnelTCPConnection] { Array(connections.values) }

    /// Takes one IPv6 packet from the host.
    func receive(packet: ByteBuffer) {
        let parsed: TunnelPacket
        do {
            parsed = try TunnelPacket.parse(packet)
        } catch {
            dropped[error, default: 0] += 1
            if case .notTCP = error {
            } else {
                TunnelTrace.note("dropped a packet (\(error), \(packet.readableBytes) bytes)")
            }
            return
        }
        guard parsed.destination == deviceAddress else { return }
        let segment = parsed.segment
        let key = Key(localPort: segment.destinationPort, remotePort: segment.sourcePort)
        if let connection = connections[key] {
            connection.receive(segment)
            return
        }
        guard segment.flags.contains(.syn), !segment.flags.contains(.ack), let acceptor = listeners[key.localPort]
        else {
            refuse(segment, from: parsed.source)
            return
        }
        let connection = TunnelTCPConnection(
            syn: segment, initialSequence: takeInitialSequence(), maximumSegmentSize: maximumSegmentSize,
            eventLoop: eventLoop
        ) { [weak self] reply in self?.send(reply) }
        connections[key] = connection
        acceptor(connection)
        let previous = connection.callbacks.closed
        connection.callbacks.closed = { [weak self] in
            self?.connections[key] = nil
            previous()
        }
    }

    /// Resets every connection (the tunnel is going away).
    func abortAll() {
        for connection in connections.values { connection.abort() }
        connections.removeAll()
    }

    /// RFC 9293 §3.10.7.1: a segment for no connection gets a RST (none for a RST).
    private func refuse(_ segment: TCPSegment, from source: IPv6Address) {
        guard !segment.flags.contains(.rst) else { return }
        TunnelTrace.note("reset: no connection for port \(segment.destinationPort) from \(segment.sourcePort)")
        let reset: TCPSegment
        if segment.flags.contains(.ack) {
            reset = TCPSegment(
                sourcePort: segment.destinationPort, destinationPort: segment.sourcePort,
                sequence: segment.acknowledgment, acknowledgment: 0, flags: [.rst], window: 0)
        } else {
            reset = TCPSegment(
                sourcePort: segment.destinationPort, destinationPort: segment.sourcePort, sequence: 0,
                acknowledgment: segment.sequence &+ segment.sequenceLength, flags: [.rst, .ack], window: 0)
        }
        output(TunnelPacket(source: deviceAddress, destination: source, segment: reset).serialized())
    }

    private func send(_ segment: TCPSegment) {
        output(TunnelPacket(source: deviceAddress, destination: hostAddress, segment: segment).serialized())
    }

    /// ISNs far apart, so a late segment of an old connection never lands in a new one's window.
    private func takeInitialSequence() -> UInt32 {
        defer { nextInitialSequence &+= 0x0100_0000 &+ UInt32.random(in: 0...0xFFFF) }
        return nextInitialSequence
    }
}
