import Foundation
import NIOCore

/// One DTX message, the unit of the instruments service's protocol (DVT-KDEBUG.md §1): a 32-byte
/// fragment header, a 16-byte payload header, the auxiliary arguments and the payload.
struct DTXMessage: Equatable, Sendable {
    enum Kind: UInt8 {
        case ok = 0
        case data = 1
        case dispatch = 2
        case object = 3
        case error = 4
        case barrier = 5
        case primitive = 6
        case compressed = 7
    }

    static let magic: UInt32 = 0x1F3D_5B79
    static let fragmentHeaderSize = 32
    static let payloadHeaderSize = 16
    /// The largest body one fragment carries, as pymobiledevice3 sends them.
    static let maximumFragmentBody = 128 * 1024
    static let expectsReplyFlag: UInt32 = 1

    var kind: Kind
    /// The sender's message number; a reply carries the request's.
    var identifier: UInt32
    /// 0 for a new message, the request's + 1 for its reply.
    var conversationIndex: UInt32
    /// 0 = the control channel. The device's own messages on a channel the host opened carry its negation.
    var channel: Int32
    var expectsReply: Bool
    var auxiliary: [UInt8]
    var payload: [UInt8]

    init(
        kind: Kind, identifier: UInt32, conversationIndex: UInt32 = 0, channel: Int32, expectsReply: Bool = false,
        auxiliary: [UInt8] = [], payload: [UInt8] = []
    ) {
        self.kind = kind
        self.identifier = identifier
        self.conversationIndex = conversationIndex
        self.channel = channel
        self.expectsReply = expectsReply
        self.auxiliary = auxiliary
        self.payload = payload
    }

    /// The message as it goes on the wire: one fragment, or a header-only fragment 0 carrying the total
    /// size followed by body fragments of at most ``maximumFragmentBody`` bytes.
    func encoded(allocator: ByteBufferAllocator = ByteBufferAllocator()) -> ByteBuffer {
        var body = allocator.buffer(capacity: Self.payloadHeaderSize + auxiliary.count + payload.count)
        body.writeInteger(UInt32(kind.rawValue), endianness: .little)
        body.writeInteger(UInt32(auxiliary.count), endianness: .little)
        body.writeInteger(UInt32(auxiliary.count + payload.count), endianness: .little)
        body.writeInteger(UInt32(0), endianness: .little)
        body.writeBytes(auxiliary)
        body.writeBytes(payload)

        let size = body.readableBytes
        var out = allocator.buffer(capacity: size + 2 * Self.fragmentHeaderSize)
        if size <= Self.maximumFragmentBody {
            writeFragmentHeader(into: &out, index: 0, count: 1, size: size)
            out.writeBuffer(&body)
            return out
        }
        let parts = (size + Self.maximumFragmentBody - 1) / Self.maximumFragmentBody
        writeFragmentHeader(into: &out, index: 0, count: parts + 1, size: size)
        for index in 1...parts {
            var part = body.readSlice(length: min(Self.maximumFragmentBody, body.readableBytes))!
            writeFragmentHeader(into: &out, index: index, count: parts + 1, size: part.readableBytes)
            out.writeBuffer(&part)
        }
        return out
    }

    private func writeFragmentHeader(into buffer: inout ByteBuffer, index: Int, count: Int, size: Int) {
        buffer.writeInteger(Self.magic, endianness: .little)
        buffer.writeInteger(UInt32(Self.fragmentHeaderSize), endianness: .little)
        buffer.writeInteger(UInt16(index), endianness: .little)
        buffer.writeInteger(UInt16(count), endianness: .little)
        buffer.writeInteger(UInt32(size), endianness: .little)
        buffer.writeInteger(identifier, endianness: .little)
        buffer.writeInteger(conversationIndex, endianness: .little)
        buffer.writeInteger(channel, endianness: .little)
        buffer.writeInteger(expectsReply ? Self.expectsReplyFlag : 0, endianness: .little)
    }
}

enum DTXProtocolError: Error, Equatable {
    case badMagic(UInt32)
    case badHeaderSize(UInt32)
    case emptyFragment
    case tooLarge(Int)
    case fragmentOutOfOrder(expected: Int, got: Int)
    case badPayloadHeader
    case unknownKind(UInt8)
}

/// Reassembles DTX messages from the byte stream (the host's fragments arrive in order per message).
struct DTXMessageDecoder: ByteToMessageDecoder {
    typealias InboundOut = DTXMessage

    /// pymobiledevice3 buffers at most 30 MiB; anything larger from a client is a protocol error.
    static let maximumMessageSize = 32 * 1024 * 1024

    private var pending: (count: Int, next: Int, body: [UInt8], header: Header)?

    private struct Header {
        var index: Int
        var count: Int
        var size: Int
        var identifier: UInt32
        var conversationIndex: UInt32
        var channel: Int32
        var flags: UInt32
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let header = try peekHeader(buffer) else { return .needMoreData }
        let headerSize = Int(buffer.getInteger(at: buffer.readerIndex + 4, endianness: .little, as: UInt32.self)!)
        // Fragment 0 of a multi-fragment message has no body: its size is the whole message's.
        let bodySize = header.index == 0 && header.count > 1 ? 0 : header.size
        guard buffer.readableBytes >= headerSize + bodySize else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: headerSize)
        let body = buffer.readBytes(length: bodySize)!

        if header.count == 1 {
            context.fireChannelRead(wrapInboundOut(try Self.message(header, body: body)))
            return .continue
        }
        if header.index == 0 {
            guard header.size <= Self.maximumMessageSize else { throw DTXProtocolError.tooLarge(header.size) }
            pending = (header.count, 1, [], header)
            return .continue
        }
        guard var assembling = pending, header.index == assembling.next else {
            throw DTXProtocolError.fragmentOutOfOrder(expected: pending?.next ?? 0, got: header.index)
        }
        assembling.body += body
        assembling.next += 1
        if assembling.next == assembling.count {
            pending = nil
            context.fireChannelRead(wrapInboundOut(try Self.message(assembling.header, body: assembling.body)))
        } else {
            pending = assembling
        }
        return .continue
    }

    private func peekHeader(_ buffer: ByteBuffer) throws -> Header? {
        guard buffer.readableBytes >= DTXMessage.fragmentHeaderSize else { return nil }
        let start = buffer.readerIndex
        func u32(_ offset: Int) -> UInt32 { buffer.getInteger(at: start + offset, endianness: .little)! }
        func u16(_ offset: Int) -> UInt16 { buffer.getInteger(at: start + offset, endianness: .little)! }
        guard u32(0) == DTXMessage.magic else { throw DTXProtocolError.badMagic(u32(0)) }
        guard u32(4) >= UInt32(DTXMessage.fragmentHeaderSize), u32(4) <= 4096 else {
            throw DTXProtocolError.badHeaderSize(u32(4))
        }
        guard u32(12) > 0 else { throw DTXProtocolError.emptyFragment }
        guard Int(u32(12)) <= Self.maximumMessageSize else { throw DTXProtocolError.tooLarge(Int(u32(12))) }
        return Header(
            index: Int(u16(8)), count: Int(u16(10)), size: Int(u32(12)), identifier: u32(16),
            conversationIndex: u32(20), channel: Int32(bitPattern: u32(24)), flags: u32(28))
    }

    private static func message(_ header: Header, body: [UInt8]) throws -> DTXMessage {
        guard body.count >= DTXMessage.payloadHeaderSize else { throw DTXProtocolError.badPayloadHeader }
        func u32(_ offset: Int) -> Int {
            Int(
                UInt32(body[offset]) | UInt32(body[offset + 1]) << 8 | UInt32(body[offset + 2]) << 16
                    | UInt32(body[offset + 3]) << 24)
        }
        guard let kind = DTXMessage.Kind(rawValue: body[0]) else { throw DTXProtocolError.unknownKind(body[0]) }
        let auxiliarySize = u32(4)
        let totalSize = u32(8)
        let end = DTXMessage.payloadHeaderSize + totalSize
        guard auxiliarySize <= totalSize, end <= body.count else { throw DTXProtocolError.badPayloadHeader }
        let payloadStart = DTXMessage.payloadHeaderSize + auxiliarySize
        return DTXMessage(
            kind: kind, identifier: header.identifier, conversationIndex: header.conversationIndex,
            channel: header.channel, expectsReply: header.flags & DTXMessage.expectsReplyFlag != 0,
            auxiliary: Array(body[DTXMessage.payloadHeaderSize..<payloadStart]),
            payload: Array(body[payloadStart..<end]))
    }
}
