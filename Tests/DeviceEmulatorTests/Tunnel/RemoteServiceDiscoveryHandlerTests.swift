import NIOCore
import NIOEmbedded
import Testing

@testable import DeviceEmulator

/// RemoteServiceDiscovery on an `EmbeddedChannel`: the frames pymobiledevice3 11.45.0 sends
/// (IOS17-TUNNEL.md §1.7) in, the device's frames out.
@Suite struct RemoteServiceDiscoveryHandlerTests {
    static let info = RemoteServiceDiscoveryInfo(
        udid: "00008120-0011223344556677", productType: "iPhone15,4", osVersion: "17.5", buildVersion: "21F79",
        uniqueChipID: 1234, services: [RemoteServiceDiscoveryInfo.debugProxyName: 50369])

    static func channel(_ info: RemoteServiceDiscoveryInfo = info) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers(
            ByteToMessageHandler(HTTP2FrameDecoder()), RemoteServiceDiscoveryHandler { info })
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    static func frames(_ list: [HTTP2Frame]) -> ByteBuffer {
        var buffer = ByteBuffer()
        for frame in list { frame.write(to: &buffer) }
        return buffer
    }

    /// Every frame the device wrote since the last call.
    static func sent(_ channel: EmbeddedChannel) throws -> [HTTP2Frame] {
        var bytes: [UInt8] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes += buffer.readableBytesView }
        var frames: [HTTP2Frame] = []
        var index = 0
        while index + 9 <= bytes.count {
            let length = Int(bytes[index]) << 16 | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2])
            let stream = bytes[(index + 5)..<(index + 9)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            frames.append(
                HTTP2Frame(
                    type: bytes[index + 3], flags: bytes[index + 4], streamID: stream,
                    payload: Array(bytes[(index + 9)..<(index + 9 + length)])))
            index += 9 + length
        }
        #expect(index == bytes.count)
        return frames
    }

    /// The client's opening: preface, SETTINGS, WINDOW_UPDATE, empty HEADERS s1 (its bytes from the table).
    static let opening = TunnelBytes.bytes(
        "505249202a20485454502f322e300d0a0d0a534d0d0a0d0a" + "00000c040000000000000300000064000401000000"
            + "00000408000000000000ff0001" + "000000010400000001")

    @Test func sendsSettingsFirstAndAcknowledgesTheClients() throws {
        let channel = try Self.channel()
        try channel.writeInbound(ByteBuffer(bytes: Self.opening))
        let frames = try Self.sent(channel)
        #expect(frames.first?.kind == .settings && frames.first?.flags == 0)
        #expect(frames.contains { $0.kind == .settings && $0.flags == HTTP2Frame.acknowledgment })
        #expect(!frames.contains { $0.kind == .data })  // nothing to answer yet
    }

    @Test func answersPing() throws {
        let channel = try Self.channel()
        try channel.writeInbound(ByteBuffer(bytes: Self.opening))
        _ = try Self.sent(channel)
        try channel.writeInbound(Self.frames([HTTP2Frame(.ping, payload: [1, 2, 3, 4, 5, 6, 7, 8])]))
        #expect(
            try Self.sent(channel)
                == [HTTP2Frame(.ping, flags: HTTP2Frame.acknowledgment, payload: [1, 2, 3, 4, 5, 6, 7, 8])])
    }

    @Test func answersTheHandshakeWithPropertiesAndServices() throws {
        let channel = try Self.channel()
        try channel.writeInbound(ByteBuffer(bytes: Self.opening))
        _ = try Self.sent(channel)
        // The handshake arrives split over two DATA frames, after an empty wrapper on stream 3.
        let handshake = TunnelBytes.bytes(XPCCodecTests.clientHandshake)
        let empty = XPCCodec.encode(XPCMessage(flags: [.alwaysSet, .initHandshake], messageID: 0, payload: nil))
        try channel.writeInbound(
            Self.frames([
                HTTP2Frame(.data, streamID: 3, payload: empty),
                HTTP2Frame(.data, streamID: 1, payload: Array(handshake[..<50])),
            ]))
        #expect(try Self.sent(channel).isEmpty)
        try channel.writeInbound(Self.frames([HTTP2Frame(.data, streamID: 1, payload: Array(handshake[50...]))]))
        let reply = try Self.sent(channel)
        #expect(reply.first == HTTP2Frame(.headers, flags: HTTP2Frame.endHeaders, streamID: 1))
        let data = reply.dropFirst().flatMap(\.payload)
        let message = try XPCCodec.decode(data[...])
        let payload = try #require(message.payload)
        #expect(payload["MessageType"] == .string("Handshake"))
        #expect(payload["Properties"]?["UniqueDeviceID"] == .string("00008120-0011223344556677"))
        #expect(payload["Properties"]?["ProductType"] == .string("iPhone15,4"))
        #expect(payload["Properties"]?["OSVersion"] == .string("17.5"))
        #expect(payload["Properties"]?["BuildVersion"] == .string("21F79"))
        #expect(payload["Properties"]?["UniqueChipID"] == .uint64(1234))
        #expect(payload["Services"]?[RemoteServiceDiscoveryInfo.debugProxyName]?["Port"] == .string("50369"))
        // A second handshake on the same connection is not answered twice.
        try channel.writeInbound(Self.frames([HTTP2Frame(.data, streamID: 1, payload: handshake)]))
        #expect(try Self.sent(channel).isEmpty)
    }

    @Test func splitsAReplyLargerThanOneFrame() throws {
        var info = Self.info
        for index in 0..<400 { info.services["com.apple.emulated.service-number-\(index)"] = UInt16(50_000 + index) }
        let channel = try Self.channel(info)
        try channel.writeInbound(ByteBuffer(bytes: Self.opening))
        _ = try Self.sent(channel)
        try channel.writeInbound(
            Self.frames([HTTP2Frame(.data, streamID: 1, payload: TunnelBytes.bytes(XPCCodecTests.clientHandshake))]))
        let data = try Self.sent(channel).filter { $0.kind == .data }
        #expect(data.count >= 3)
        #expect(data.allSatisfy { $0.payload.count <= 16384 && $0.streamID == 1 })
        let services = try XPCCodec.decode(data.flatMap(\.payload)[...]).payload?["Services"]
        guard case .dictionary(let entries)? = services else {
            Issue.record("no Services in \(String(describing: services))")
            return
        }
        #expect(entries.count == 401)
    }

    @Test func closesAConnectionThatIsNotHTTP2() throws {
        let channel = try Self.channel()
        #expect(channel.isActive)
        _ = try? channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"))
        #expect(!channel.isActive)
    }
}
