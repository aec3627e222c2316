import Foundation

/// Encodes and decodes RemoteXPC messages. Decoding never traps: truncated, oversized or unknown input
/// is an ``XPCCodec/DecodingError``.
enum XPCCodec {
    enum DecodingError: Error, Equatable {
        /// Fewer bytes than the wrapper or an object says; `needed` more would complete it.
        case truncated
        case badMagic(UInt32)
        case badPayloadVersion(UInt32)
        case unknownType(UInt32)
        case badString
        /// Nested deeper than any RemoteXPC message (a hostile input, not a device).
        case tooDeep
    }

    static let maximumDepth = 64

    // MARK: - Encoding

    static func encode(_ message: XPCMessage) -> [UInt8] {
        var body: [UInt8] = []
        if let payload = message.payload {
            put32(payload: &body, XPCMessage.payloadMagic)
            put32(payload: &body, XPCMessage.payloadVersion)
            encode(payload, into: &body)
        }
        var out: [UInt8] = []
        out.reserveCapacity(XPCMessage.headerLength + body.count)
        put32(payload: &out, XPCMessage.wrapperMagic)
        put32(payload: &out, message.flags.rawValue)
        put64(&out, UInt64(body.count))
        put64(&out, message.messageID)
        return out + body
    }

    static func encode(_ object: XPCObject, into out: inout [UInt8]) {
        switch object {
        case .null:
            put32(payload: &out, XPCObject.Tag.null.rawValue)
        case .bool(let value):
            put32(payload: &out, XPCObject.Tag.bool.rawValue)
            put32(payload: &out, value ? 1 : 0)
        case .int64(let value):
            put32(payload: &out, XPCObject.Tag.int64.rawValue)
            put64(&out, UInt64(bitPattern: value))
        case .uint64(let value):
            put32(payload: &out, XPCObject.Tag.uint64.rawValue)
            put64(&out, value)
        case .double(let value):
            put32(payload: &out, XPCObject.Tag.double.rawValue)
            put64(&out, value.bitPattern)
        case .date(let nanoseconds):
            put32(payload: &out, XPCObject.Tag.date.rawValue)
            put64(&out, UInt64(bitPattern: nanoseconds))
        case .data(let bytes):
            put32(payload: &out, XPCObject.Tag.data.rawValue)
            put32(payload: &out, UInt32(bytes.count))
            out += bytes
            pad(&out)
        case .string(let text):
            put32(payload: &out, XPCObject.Tag.string.rawValue)
            let bytes = Array(text.utf8) + [0]
            put32(payload: &out, UInt32(bytes.count))
            out += bytes
            pad(&out)
        case .uuid(let uuid):
            put32(payload: &out, XPCObject.Tag.uuid.rawValue)
            out += withUnsafeBytes(of: uuid.uuid) { Array($0) }
        case .array(let items):
            put32(payload: &out, XPCObject.Tag.array.rawValue)
            var body: [UInt8] = []
            put32(payload: &body, UInt32(items.count))
            for item in items { encode(item, into: &body) }
            put32(payload: &out, UInt32(body.count))
            out += body
        case .dictionary(let entries):
            put32(payload: &out, XPCObject.Tag.dictionary.rawValue)
            var body: [UInt8] = []
            put32(payload: &body, UInt32(entries.count))
            for (key, value) in entries {
                body += Array(key.utf8) + [0]
                pad(&body)
                encode(value, into: &body)
            }
            put32(payload: &out, UInt32(body.count))
            out += body
        }
    }

    // Every value's length is padded to 4, so each object starts 4-aligned.
    private static func pad(_ out: inout [UInt8]) {
        while out.count % 4 != 0 { out.append(0) }
    }

    private static func put32(payload out: inout [UInt8], _ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { out += $0 }
    }

    private static func put64(_ out: inout [UInt8], _ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { out += $0 }
    }

    // MARK: - Decoding

    /// The length of the whole message at the start of `bytes` (header + payload), or `nil` when even the
    /// header is not complete yet.
    static func messageLength(_ bytes: ArraySlice<UInt8>) throws(DecodingError) -> Int? {
        var reader = Reader(bytes: bytes)
        guard bytes.count >= XPCMessage.headerLength else { return nil }
        let magic = try reader.u32()
        guard magic == XPCMessage.wrapperMagic else { throw .badMagic(magic) }
        _ = try reader.u32()
        let size = try reader.u64()
        guard size <= UInt64(Int32.max) else { throw .truncated }
        return XPCMessage.headerLength + Int(size)
    }

    /// Decodes one whole message (what ``messageLength(_:)`` measured).
    static func decode(_ bytes: ArraySlice<UInt8>) throws(DecodingError) -> XPCMessage {
        var reader = Reader(bytes: bytes)
        let magic = try reader.u32()
        guard magic == XPCMessage.wrapperMagic else { throw .badMagic(magic) }
        let flags = XPCMessage.Flags(rawValue: try reader.u32())
        let size = try reader.u64()
        let messageID = try reader.u64()
        guard size <= UInt64(reader.remaining) else { throw .truncated }
        guard size > 0 else { return XPCMessage(flags: flags, messageID: messageID, payload: nil) }
        let payloadMagic = try reader.u32()
        guard payloadMagic == XPCMessage.payloadMagic else { throw .badMagic(payloadMagic) }
        let version = try reader.u32()
        guard version == XPCMessage.payloadVersion else { throw .badPayloadVersion(version) }
        let payload = try decodeObject(&reader, depth: 0)
        return XPCMessage(flags: flags, messageID: messageID, payload: payload)
    }

    private static func decodeObject(_ reader: inout Reader, depth: Int) throws(DecodingError) -> XPCObject {
        guard depth < maximumDepth else { throw .tooDeep }
        let raw = try reader.u32()
        guard let tag = XPCObject.Tag(rawValue: raw) else { throw .unknownType(raw) }
        switch tag {
        case .null: return .null
        case .bool: return .bool(try reader.u32() != 0)
        case .int64: return .int64(Int64(bitPattern: try reader.u64()))
        case .uint64: return .uint64(try reader.u64())
        case .double: return .double(Double(bitPattern: try reader.u64()))
        case .date: return .date(nanoseconds: Int64(bitPattern: try reader.u64()))
        case .data:
            let length = Int(try reader.u32())
            let bytes = try reader.bytes(length)
            try reader.skipPadding(after: length)
            return .data(Array(bytes))
        case .string:
            let length = Int(try reader.u32())
            let bytes = try reader.bytes(length)
            try reader.skipPadding(after: length)
            guard let end = bytes.firstIndex(of: 0), let text = String(validating: bytes[..<end], as: UTF8.self)
            else { throw .badString }
            return .string(text)
        case .uuid:
            let bytes = Array(try reader.bytes(16))
            let uuid = UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                    bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
            return .uuid(uuid)
        case .array:
            _ = try reader.u32()  // byte length: the count says how many follow
            let count = Int(try reader.u32())
            guard count <= reader.remaining / 4 else { throw .truncated }
            var items: [XPCObject] = []
            for _ in 0..<count { items.append(try decodeObject(&reader, depth: depth + 1)) }
            return .array(items)
        case .dictionary:
            _ = try reader.u32()
            let count = Int(try reader.u32())
            guard count <= reader.remaining / 8 else { throw .truncated }
            var entries: [(String, XPCObject)] = []
            for _ in 0..<count {
                let key = try reader.cString()
                try reader.skipPadding(after: key.utf8.count + 1)
                entries.append((key, try decodeObject(&reader, depth: depth + 1)))
            }
            return .dictionary(entries)
        }
    }

    /// A little-endian cursor over the message.
    private struct Reader {
        let bytes: ArraySlice<UInt8>
        var offset = 0

        var remaining: Int { bytes.count - offset }

        mutating func bytes(_ count: Int) throws(DecodingError) -> ArraySlice<UInt8> {
            guard count >= 0, count <= remaining else { throw .truncated }
            let start = bytes.startIndex + offset
            offset += count
            return bytes[start..<(start + count)]
        }

        mutating func u32() throws(DecodingError) -> UInt32 {
            try bytes(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }

        mutating func u64() throws(DecodingError) -> UInt64 {
            try bytes(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }

        /// Padding is relative to where each value starts (as pymobiledevice3 reads it), not to the message.
        mutating func skipPadding(after length: Int) throws(DecodingError) {
            _ = try bytes((4 - length % 4) % 4)
        }

        mutating func cString() throws(DecodingError) -> String {
            let start = bytes.startIndex + offset
            guard let end = bytes[start...].firstIndex(of: 0) else { throw .truncated }
            guard let text = String(validating: bytes[start..<end], as: UTF8.self) else { throw .badString }
            offset += end - start + 1
            return text
        }
    }
}
