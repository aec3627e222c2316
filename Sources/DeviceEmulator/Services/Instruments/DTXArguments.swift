import Foundation
import NIOCore

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
        var body = ByteBuffer()
        for argument in arguments {
            body.writeInteger(nullKey, endianness: .little)
            switch argument {
            case .string(let string):
                body.writeInteger(UInt32(1), endianness: .little)
                body.writeInteger(UInt32(string.utf8.count), endianness: .little)
                body.writeString(string)
            case .object(let object):
                let archive = object.map { KeyedArchive.encode($0) } ?? []
                body.writeInteger(UInt32(2), endianness: .little)
                body.writeInteger(UInt32(archive.count), endianness: .little)
                body.writeBytes(archive)
            case .int32(let int):
                body.writeInteger(UInt32(3), endianness: .little)
                body.writeInteger(int, endianness: .little)
            case .int64(let int):
                body.writeInteger(UInt32(6), endianness: .little)
                body.writeInteger(int, endianness: .little)
            case .double(let double):
                body.writeInteger(UInt32(9), endianness: .little)
                body.writeInteger(double.bitPattern, endianness: .little)
            case .null:
                body.writeInteger(UInt32(10), endianness: .little)
            }
        }
        var out = ByteBuffer()
        out.writeInteger(headerMagic, endianness: .little)
        out.writeInteger(UInt32(0), endianness: .little)
        out.writeInteger(UInt64(body.readableBytes), endianness: .little)
        out.writeBuffer(&body)
        return Array(out.readableBytesView)
    }

    static func decode(_ bytes: [UInt8]) throws -> [DTXArgument] {
        guard !bytes.isEmpty else { return [] }
        var buffer = ByteBuffer(bytes: bytes)
        func u32() throws -> UInt32 {
            guard let value = buffer.readInteger(endianness: .little, as: UInt32.self) else {
                throw DTXArgumentError.truncated
            }
            return value
        }
        func u64() throws -> UInt64 {
            guard let value = buffer.readInteger(endianness: .little, as: UInt64.self) else {
                throw DTXArgumentError.truncated
            }
            return value
        }
        guard let magic = buffer.readInteger(endianness: .little, as: UInt32.self), magic & 0xFF == 0xF0,
            buffer.readInteger(endianness: .little, as: UInt32.self) != nil,
            let length = buffer.readInteger(endianness: .little, as: UInt64.self), length <= buffer.readableBytes
        else { throw DTXArgumentError.badHeader }
        var body = buffer.readSlice(length: Int(length))!
        swap(&buffer, &body)
        var arguments: [DTXArgument] = []
        while buffer.readableBytes > 0 {
            _ = try u32()  // the key: always null
            let type = try u32()
            switch type {
            case 1, 2:
                let count = Int(try u32())
                guard let data = buffer.readBytes(length: count) else { throw DTXArgumentError.truncated }
                if type == 1 {
                    arguments.append(.string(String(decoding: data, as: UTF8.self)))
                } else {
                    arguments.append(.object(data.isEmpty ? nil : try KeyedArchive.decode(data)))
                }
            case 3: arguments.append(.int32(Int32(bitPattern: try u32())))
            case 4, 6: arguments.append(.int64(Int64(bitPattern: try u64())))
            case 9: arguments.append(.double(Double(bitPattern: try u64())))
            case 10: arguments.append(.null)
            default: throw DTXArgumentError.unknownType(type)
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
