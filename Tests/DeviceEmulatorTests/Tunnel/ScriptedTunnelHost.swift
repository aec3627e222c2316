import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import DeviceEmulator

/// The host end of a CoreDeviceProxy tunnel, scripted segment by segment: the CDTunnel decoder and the
/// tunnel handler on an `EmbeddedChannel`, with a virtual clock for the retransmission timer.
///
/// Listening inside the tunnel: port 7 echoes (and closes when the peer does), port 9 records what it
/// gets, port 19 sends `chargenBytes` on accept. Use it from one thread.
final class ScriptedTunnelHost {
    static let echoPort: UInt16 = 7
    static let sinkPort: UInt16 = 9
    static let chargenPort: UInt16 = 19

    let loop = EmbeddedEventLoop()
    let channel: EmbeddedChannel
    private(set) var deviceAddress = IPv6Address(bytes: Array(repeating: 0, count: 16))
    private(set) var hostAddress = IPv6Address(bytes: Array(repeating: 0, count: 16))
    private(set) var handshakeReply: [String: Any] = [:]
    /// What port 9 received, in order.
    var sunk: [UInt8] { sink.bytes }

    private final class Sink { var bytes: [UInt8] = [] }
    private let sink = Sink()

    init(chargenBytes: Int = 0) throws {
        let sink = sink
        let listeners: [UInt16: TunnelTCPStack.Acceptor] = [
            Self.echoPort: { connection in
                connection.callbacks.data = { [unowned connection] in connection.send($0) }
                connection.callbacks.peerClosed = { [unowned connection] in connection.close() }
            },
            Self.sinkPort: { connection in
                connection.callbacks.data = { sink.bytes += Array($0.readableBytesView) }
            },
            Self.chargenPort: { connection in
                connection.send(ByteBuffer(bytes: (0..<chargenBytes).map { UInt8(truncatingIfNeeded: $0) }))
            },
        ]
        channel = EmbeddedChannel(loop: loop)
        try channel.pipeline.syncOperations.addHandlers(
            ByteToMessageHandler(CDTunnelDecoder()),
            CoreDeviceTunnelHandler(udid: "EMULATED-TUNNEL", listeners: listeners))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    }

    /// Sends the CDTunnel request (pymobiledevice3's exact bytes for `mtu`) and reads the reply.
    func handshake(mtu: Int = 16000) throws {
        let json = Array(#"{"type": "clientHandshakeRequest", "mtu": \#(mtu)}"#.utf8)
        try writeRaw(Array("CDTunnel".utf8) + [UInt8(json.count >> 8), UInt8(json.count & 0xFF)] + json)
        var reply = try readOutbound()
        #expect(reply.readBytes(length: 8) == Array("CDTunnel".utf8))
        let length = Int(reply.readInteger(as: UInt16.self)!)
        #expect(reply.readableBytes == length)
        handshakeReply = try JSONSerialization.jsonObject(with: Data(reply.readableBytesView)) as! [String: Any]
        let client = handshakeReply["clientParameters"] as! [String: Any]
        deviceAddress = Self.address(handshakeReply["serverAddress"] as! String)
        hostAddress = Self.address(client["address"] as! String)
    }

    func writeRaw(_ bytes: [UInt8]) throws {
        try channel.writeInbound(ByteBuffer(bytes: bytes))
    }

    /// Sends one segment from the host to the device.
    func send(_ segment: TCPSegment) throws {
        try channel.writeInbound(
            TunnelPacket(source: hostAddress, destination: deviceAddress, segment: segment).serialized())
    }

    /// Every segment the device sent since the last call (checksums verified on the way).
    func received() throws -> [TCPSegment] {
        var segments: [TCPSegment] = []
        while let packet = try channel.readOutbound(as: ByteBuffer.self) {
            let parsed = try TunnelPacket.parse(packet)
            #expect(parsed.source == deviceAddress && parsed.destination == hostAddress)
            segments.append(parsed.segment)
        }
        return segments
    }

    func advance(milliseconds: Int64) {
        loop.advanceTime(by: .milliseconds(milliseconds))
    }

    var openConnections: Int {
        let handler = try? channel.pipeline.syncOperations.handler(type: CoreDeviceTunnelHandler.self)
        return handler?.stack?.openConnections.count ?? 0
    }

    private func readOutbound() throws -> ByteBuffer {
        guard let buffer = try channel.readOutbound(as: ByteBuffer.self) else { throw ScriptError.nothingSent }
        return buffer
    }

    enum ScriptError: Error { case nothingSent }

    /// Parses the short forms the device prints (`fdxx:…::1`).
    static func address(_ text: String) -> IPv6Address {
        let halves = text.components(separatedBy: "::")
        func groups(_ part: String) -> [UInt16] {
            part.isEmpty ? [] : part.split(separator: ":").map { UInt16($0, radix: 16)! }
        }
        let head = groups(halves[0])
        let tail = halves.count > 1 ? groups(halves[1]) : []
        let all = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        return IPv6Address(bytes: all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
    }
}
