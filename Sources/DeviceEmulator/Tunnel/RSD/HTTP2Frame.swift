import NIOCore

/// One HTTP/2 frame (RFC 9113 §4.1): a 9-byte header and a payload. RemoteXPC uses HTTP/2 only as a
/// framing of streams: the client sends empty header blocks (no HPACK), no padding and no priorities,
/// so a frame codec is all the device side needs.
struct HTTP2Frame: Equatable {
    enum Kind: UInt8 {
        case data = 0x0
        case headers = 0x1
        case priority = 0x2
        case resetStream = 0x3
        case settings = 0x4
        case pushPromise = 0x5
        case ping = 0x6
        case goAway = 0x7
        case windowUpdate = 0x8
        case continuation = 0x9
    }

    static let headerLength = 9
    /// SETTINGS_MAX_FRAME_SIZE's default, which neither side raises here.
    static let maximumPayload = 16384

    static let endStream: UInt8 = 0x1
    static let acknowledgment: UInt8 = 0x1  // SETTINGS and PING
    static let endHeaders: UInt8 = 0x4

    /// The raw type: frames of unknown types are read and ignored (RFC 9113 §4.1).
    var type: UInt8
    var flags: UInt8
    var streamID: UInt32
    var payload: [UInt8]

    var kind: Kind? { Kind(rawValue: type) }

    init(_ kind: Kind, flags: UInt8 = 0, streamID: UInt32 = 0, payload: [UInt8] = []) {
        self.init(type: kind.rawValue, flags: flags, streamID: streamID, payload: payload)
    }

    init(type: UInt8, flags: UInt8, streamID: UInt32, payload: [UInt8]) {
        self.type = type
        self.flags = flags
        self.streamID = streamID
        self.payload = payload
    }

    func write(to buffer: inout ByteBuffer) {
        let length = UInt32(payload.count)
        buffer.writeInteger(UInt8(length >> 16 & 0xFF))
        buffer.writeInteger(UInt16(length & 0xFFFF))
        buffer.writeInteger(type)
        buffer.writeInteger(flags)
        buffer.writeInteger(streamID & 0x7FFF_FFFF)
        buffer.writeBytes(payload)
    }

    /// A SETTINGS frame with these (identifier, value) pairs.
    static func settings(_ values: [(UInt16, UInt32)]) -> HTTP2Frame {
        var payload: [UInt8] = []
        for (identifier, value) in values {
            payload += [UInt8(identifier >> 8), UInt8(identifier & 0xFF)]
            payload += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }
        return HTTP2Frame(.settings, payload: payload)
    }

    static let maxConcurrentStreams: UInt16 = 0x3
    static let initialWindowSize: UInt16 = 0x4
}

/// What an RSD connection's client sends: the connection preface, then frames.
enum HTTP2Inbound: Equatable {
    case preface
    case frame(HTTP2Frame)
}

/// Cuts the client's bytes into the preface and frames; anything else closes the connection.
struct HTTP2FrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = HTTP2Inbound

    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    enum DecodingError: Error, Equatable {
        case notHTTP2
        case frameTooLong(Int)
    }

    private var sawPreface = false

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if !sawPreface {
            let available = min(buffer.readableBytes, Self.preface.count)
            guard buffer.getBytes(at: buffer.readerIndex, length: available) == Array(Self.preface[..<available])
            else { throw DecodingError.notHTTP2 }
            guard available == Self.preface.count else { return .needMoreData }
            buffer.moveReaderIndex(forwardBy: Self.preface.count)
            sawPreface = true
            context.fireChannelRead(NIOAny(HTTP2Inbound.preface))
            return .continue
        }
        guard buffer.readableBytes >= HTTP2Frame.headerLength else { return .needMoreData }
        let start = buffer.readerIndex
        let length =
            Int(buffer.getInteger(at: start, as: UInt8.self)!) << 16
            | Int(buffer.getInteger(at: start + 1, as: UInt16.self)!)
        guard length <= HTTP2Frame.maximumPayload else { throw DecodingError.frameTooLong(length) }
        guard buffer.readableBytes >= HTTP2Frame.headerLength + length else { return .needMoreData }
        let type = buffer.getInteger(at: start + 3, as: UInt8.self)!
        let flags = buffer.getInteger(at: start + 4, as: UInt8.self)!
        let streamID = buffer.getInteger(at: start + 5, as: UInt32.self)! & 0x7FFF_FFFF
        buffer.moveReaderIndex(forwardBy: HTTP2Frame.headerLength)
        let payload = buffer.readBytes(length: length)!
        let frame = HTTP2Frame(type: type, flags: flags, streamID: streamID, payload: payload)
        context.fireChannelRead(NIOAny(HTTP2Inbound.frame(frame)))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}
