import NIOCore

/// What the host sends on a CoreDeviceProxy connection: one handshake frame, then IPv6 packets.
enum CDTunnelInbound {
    /// `CDTunnel` + big-endian u16 length + that many bytes of JSON (the `clientHandshakeRequest`).
    case handshake(ByteBuffer)
    /// One whole IPv6 packet (40-byte header + the payload length it declares).
    case packet(ByteBuffer)
}

/// Cuts the CoreDeviceProxy byte stream: the handshake frame first, then raw IPv6 packets back to back
/// with no framing of their own (pymobiledevice3 writes one packet per `sendall`, but TCP and TLS may
/// join or split them, so the stream is parsed as a stream).
struct CDTunnelDecoder: ByteToMessageDecoder {
    typealias InboundOut = CDTunnelInbound

    static let magic = Array("CDTunnel".utf8)
    static let headerLength = magic.count + 2
    /// A handshake is ~60 bytes; anything near 64 KiB is not a CDTunnel client.
    static let maximumHandshakeLength = 16 * 1024

    enum DecodingError: Error, Equatable {
        case notCDTunnel
        case handshakeTooLong(Int)
        case notIPv6(versionNibble: UInt8)
    }

    private var handshakeDone = false

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        handshakeDone
            ? try decodePacket(context: context, buffer: &buffer)
            : try decodeHandshake(context: context, buffer: &buffer)
    }

    private mutating func decodeHandshake(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws
        -> DecodingState
    {
        guard buffer.readableBytes >= Self.headerLength else { return .needMoreData }
        guard buffer.getBytes(at: buffer.readerIndex, length: Self.magic.count) == Self.magic else {
            throw DecodingError.notCDTunnel
        }
        let length = Int(buffer.getInteger(at: buffer.readerIndex + Self.magic.count, as: UInt16.self)!)
        guard length <= Self.maximumHandshakeLength else { throw DecodingError.handshakeTooLong(length) }
        guard buffer.readableBytes >= Self.headerLength + length else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: Self.headerLength)
        let body = buffer.readSlice(length: length)!
        handshakeDone = true
        context.fireChannelRead(NIOAny(CDTunnelInbound.handshake(body)))
        return .continue
    }

    private func decodePacket(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard buffer.readableBytes >= TunnelPacket.ipv6HeaderLength else { return .needMoreData }
        let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self)!
        // Without framing, a byte that is not an IPv6 header means the stream is lost: close, do not guess.
        guard first >> 4 == 6 else { throw DecodingError.notIPv6(versionNibble: first >> 4) }
        let payloadLength = Int(buffer.getInteger(at: buffer.readerIndex + 4, as: UInt16.self)!)
        guard buffer.readableBytes >= TunnelPacket.ipv6HeaderLength + payloadLength else { return .needMoreData }
        let packet = buffer.readSlice(length: TunnelPacket.ipv6HeaderLength + payloadLength)!
        context.fireChannelRead(NIOAny(CDTunnelInbound.packet(packet)))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData  // a cut-off last packet is dropped with the connection
    }
}
