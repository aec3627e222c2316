import NIOCore

/// One AFC packet: 40-byte little-endian header (`CFA6LPAA`, entire length, this length, packet
/// number, operation), header data, then payload (PROTOCOLS.md §6.1).
struct AFCPacket: Equatable {
    static let magic: [UInt8] = Array("CFA6LPAA".utf8)
    static let headerSize = 40

    var packetNumber: UInt64
    var operation: UInt64
    /// Bytes between the header and `this_length` (paths, handles, modes).
    var headerData: [UInt8]
    /// Bytes after `this_length` (file contents).
    var payload: [UInt8]

    /// Header, header data and payload in one buffer, so the reply goes out in one write.
    func encoded(allocator: ByteBufferAllocator = ByteBufferAllocator()) -> ByteBuffer {
        let thisLength = Self.headerSize + headerData.count
        var buffer = allocator.buffer(capacity: thisLength + payload.count)
        buffer.writeBytes(Self.magic)
        buffer.writeInteger(UInt64(thisLength + payload.count), endianness: .little)
        buffer.writeInteger(UInt64(thisLength), endianness: .little)
        buffer.writeInteger(packetNumber, endianness: .little)
        buffer.writeInteger(operation, endianness: .little)
        buffer.writeBytes(headerData)
        buffer.writeBytes(payload)
        return buffer
    }
}

/// AFC operation codes (libimobiledevice `afc.h`).
enum AFCOperation: UInt64 {
    case status = 0x01
    case data = 0x02
    case readDir = 0x03
    case removePath = 0x08
    case makeDir = 0x09
    case getFileInfo = 0x0A
    case getDeviceInfo = 0x0B
    case fileOpen = 0x0D
    case fileOpenResult = 0x0E
    case fileRead = 0x0F
    case fileWrite = 0x10
    case fileClose = 0x14
    case rename = 0x18
    case makeLink = 0x1C
    case removePathAndContents = 0x22
}

/// AFC status codes sent in STATUS replies.
enum AFCStatus: UInt64 {
    case success = 0
    case unknownError = 1
    case headerInvalid = 2
    case readError = 4
    case writeError = 5
    case invalidArgument = 7
    case objectNotFound = 8
    case objectIsDirectory = 9
    case permissionDenied = 10
    case operationNotSupported = 15
    case objectExists = 16
    case ioError = 20
}

enum AFCFramingError: Error {
    case badLengths(entire: UInt64, this: UInt64)
}

/// Splits the AFC byte stream into packets.
struct AFCPacketDecoder: ByteToMessageDecoder {
    typealias InboundOut = AFCPacket

    /// ideviceinstaller writes up to 1 MiB per FileWrite; allow generous room.
    var maximumLength: UInt64 = 64 * 1024 * 1024

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let packet = try Self.decodePacket(from: &buffer, maximumLength: maximumLength) else {
            return .needMoreData
        }
        context.fireChannelRead(wrapInboundOut(packet))
        return .continue
    }

    /// A whole packet from the front of `buffer`, or `nil` when more bytes are needed.
    static func decodePacket(from buffer: inout ByteBuffer, maximumLength: UInt64) throws -> AFCPacket? {
        let start = buffer.readerIndex
        guard buffer.readableBytes >= AFCPacket.headerSize,
            let entire = buffer.getInteger(at: start + 8, endianness: .little, as: UInt64.self),
            let this = buffer.getInteger(at: start + 16, endianness: .little, as: UInt64.self),
            let number = buffer.getInteger(at: start + 24, endianness: .little, as: UInt64.self),
            let operation = buffer.getInteger(at: start + 32, endianness: .little, as: UInt64.self)
        else { return nil }
        guard this >= UInt64(AFCPacket.headerSize), entire >= this, entire <= maximumLength else {
            throw AFCFramingError.badLengths(entire: entire, this: this)
        }
        guard buffer.readableBytes >= Int(entire) else { return nil }
        buffer.moveReaderIndex(forwardBy: AFCPacket.headerSize)
        let headerData = buffer.readBytes(length: Int(this) - AFCPacket.headerSize) ?? []
        let payload = buffer.readBytes(length: Int(entire - this)) ?? []
        return AFCPacket(packetNumber: number, operation: operation, headerData: headerData, payload: payload)
    }
}
