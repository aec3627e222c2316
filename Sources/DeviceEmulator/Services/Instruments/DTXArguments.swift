import Foundation

/// One argument of a DTX message's auxiliary "primitive dictionary" (every key is null, so it is a list).
/// Objects travel as NSKeyedArchiver property lists, read and written by Foundation's own archiver, which
/// pymobiledevice3's bpylist2 reads and writes compatibly (checked both ways: NSString, NSNumber,
/// NSArray, NSDictionary, NSSet).
enum DTXArgument {
    case string(String)
    /// An archived object, decoded (`nil` for an empty buffer).
    case object(Any?)
    case int32(Int32)
    case int64(Int64)
    case double(Double)
    case null

    /// The value as Foundation sees it: numbers as `Int`/`Double`, objects as decoded.
    var value: Any? {
        switch self {
        case .string(let string): return string
        case .object(let object): return object
        case .int32(let int): return Int(int)
        case .int64(let int): return Int(int)
        case .double(let double): return double
        case .null: return nil
        }
    }
}

enum DTXArgumentError: Error, Equatable {
    case badHeader
    case truncated
    case unknownType(UInt32)
    case unreadableArchive
}

enum DTXArguments {
    private static let headerMagic: UInt32 = 0x1F0
    private static let nullKey: UInt32 = 10

    /// The auxiliary bytes for `arguments` (empty for none, as pymobiledevice3 sends them).
    static func encode(_ arguments: [DTXArgument]) -> [UInt8] {
        guard !arguments.isEmpty else { return [] }
        var body: [UInt8] = []
        for argument in arguments {
            body.appendLittleEndian(nullKey)
            switch argument {
            case .string(let string):
                body.appendLittleEndian(UInt32(1))
                body.appendLittleEndian(UInt32(string.utf8.count))
                body += Array(string.utf8)
            case .object(let object):
                let archive = object.map { KeyedArchive.encode($0) } ?? []
                body.appendLittleEndian(UInt32(2))
                body.appendLittleEndian(UInt32(archive.count))
                body += archive
            case .int32(let int):
                body.appendLittleEndian(UInt32(3))
                body.appendLittleEndian(UInt32(bitPattern: int))
            case .int64(let int):
                body.appendLittleEndian(UInt32(6))
                body.appendLittleEndian(UInt64(bitPattern: int))
            case .double(let double):
                body.appendLittleEndian(UInt32(9))
                body.appendLittleEndian(double.bitPattern)
            case .null:
                body.appendLittleEndian(UInt32(10))
            }
        }
        var out: [UInt8] = []
        out.appendLittleEndian(headerMagic)
        out.appendLittleEndian(UInt32(0))
        out.appendLittleEndian(UInt64(body.count))
        return out + body
    }

    static func decode(_ bytes: [UInt8]) throws -> [DTXArgument] {
        guard !bytes.isEmpty else { return [] }
        var reader = LittleEndianReader(bytes)
        guard let magic = reader.u32(), magic & 0xFF == 0xF0, reader.u32() != nil, let length = reader.u64(),
            Int(length) <= reader.remaining
        else { throw DTXArgumentError.badHeader }
        let end = reader.offset + Int(length)
        var arguments: [DTXArgument] = []
        while reader.offset < end {
            guard reader.u32() != nil, let type = reader.u32() else { throw DTXArgumentError.truncated }
            switch type {
            case 1, 2:
                guard let count = reader.u32(), let data = reader.bytes(Int(count)) else {
                    throw DTXArgumentError.truncated
                }
                if type == 1 {
                    arguments.append(.string(String(decoding: data, as: UTF8.self)))
                } else {
                    arguments.append(.object(data.isEmpty ? nil : try KeyedArchive.decode(data)))
                }
            case 3:
                guard let value = reader.u32() else { throw DTXArgumentError.truncated }
                arguments.append(.int32(Int32(bitPattern: value)))
            case 4, 6:
                guard let value = reader.u64() else { throw DTXArgumentError.truncated }
                arguments.append(.int64(Int64(bitPattern: value)))
            case 9:
                guard let value = reader.u64() else { throw DTXArgumentError.truncated }
                arguments.append(.double(Double(bitPattern: value)))
            case 10:
                arguments.append(.null)
            default:
                throw DTXArgumentError.unknownType(type)
            }
        }
        return arguments
    }
}

/// NSKeyedArchiver property lists through Foundation's archiver.
enum KeyedArchive {
    static func encode(_ object: Any) -> [UInt8] {
        do {
            return Array(try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false))
        } catch {
            // Only the emulator's own replies are archived: a non-archivable value is a programming error.
            preconditionFailure("DeviceEmulator archived a value NSKeyedArchiver cannot encode: \(error)")
        }
    }

    static func decode(_ bytes: [UInt8]) throws -> Any? {
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(bytes))
        unarchiver.requiresSecureCoding = false
        defer { unarchiver.finishDecoding() }
        guard let object = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) else {
            throw DTXArgumentError.unreadableArchive
        }
        return object
    }
}

extension [UInt8] {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

/// Reads little-endian integers and byte runs; every read returns `nil` past the end.
struct LittleEndianReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var remaining: Int { bytes.count - offset }

    mutating func u32() -> UInt32? { integer() }

    mutating func u64() -> UInt64? { integer() }

    mutating func bytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, count <= remaining else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    private mutating func integer<T: FixedWidthInteger>() -> T? {
        guard let raw = bytes(MemoryLayout<T>.size) else { return nil }
        return raw.reversed().reduce(T.zero) { $0 << 8 | T($1) }
    }
}
