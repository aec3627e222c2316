import Foundation
import NIOCore

/// Splits a byte stream framed as lockdown does — 4-byte big-endian length, then a plist — into plist
/// bodies (one `ByteBuffer` per message). Also used by installation_proxy and diagnostics_relay.
struct PlistFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// Frames above this size are a protocol error: the connection is closed.
    var maximumLength: Int = 16 * 1024 * 1024

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let length = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self) else {
            return .needMoreData
        }
        guard Int(length) <= maximumLength else { throw PlistFrameError.tooLong(Int(length)) }
        guard buffer.readableBytes >= 4 + Int(length) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 4)
        context.fireChannelRead(wrapInboundOut(buffer.readSlice(length: Int(length))!))
        return .continue
    }
}

enum PlistFrameError: Error {
    case tooLong(Int)
}

extension ByteBuffer {
    /// One lockdown-style frame (length + XML plist) in a single buffer, so it goes out in one write.
    static func plistFrame(_ dictionary: [String: Any]) -> ByteBuffer {
        let body = PropertyList.xml(dictionary)
        var buffer = ByteBufferAllocator().buffer(capacity: 4 + body.count)
        buffer.writeInteger(UInt32(body.count), endianness: .big)
        buffer.writeBytes(body)
        return buffer
    }

    /// The readable bytes decoded as a plist dictionary; `nil` if they are not one.
    var plistDictionary: [String: Any]? {
        PropertyList.dictionary(from: Data(readableBytesView))
    }
}

extension ChannelInboundHandler where InboundIn == ByteBuffer {
    /// The frame's plist request. A frame that is not a plist dictionary closes the connection and gives `nil`:
    /// a real lockdownd, and the services spoken in its frames, drop such a client.
    func plistRequest(in data: NIOAny, context: ChannelHandlerContext) -> [String: Any]? {
        guard let request = unwrapInboundIn(data).plistDictionary else {
            context.close(promise: nil)
            return nil
        }
        return request
    }
}
