import Foundation

/// An XPC value as RemoteXPC carries it (IOS17-TUNNEL.md §1.7). Dictionaries keep their wire order.
indirect enum XPCObject: Equatable {
    case null
    case bool(Bool)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case date(nanoseconds: Int64)
    case data([UInt8])
    case string(String)
    case uuid(UUID)
    case array([XPCObject])
    case dictionary([(String, XPCObject)])

    /// The wire type tags (`xpc_message.py` XpcMessageType).
    enum Tag: UInt32 {
        case null = 0x1000
        case bool = 0x2000
        case int64 = 0x3000
        case uint64 = 0x4000
        case double = 0x5000
        case date = 0x7000
        case data = 0x8000
        case string = 0x9000
        case uuid = 0xA000
        case array = 0xE000
        case dictionary = 0xF000
    }

    /// The value of `key` in a dictionary (`nil` for other values and missing keys).
    subscript(key: String) -> XPCObject? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries.first { $0.0 == key }?.1
    }

    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    static func == (lhs: XPCObject, rhs: XPCObject) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int64(let a), .int64(let b)): return a == b
        case (.uint64(let a), .uint64(let b)): return a == b
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        case (.date(let a), .date(let b)): return a == b
        case (.data(let a), .data(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.uuid(let a), .uuid(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.dictionary(let a), .dictionary(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }
}

/// One RemoteXPC message: the wrapper (magic 0x29B00B92, flags, size, message id, all little-endian)
/// and its optional payload (magic 0x42133742, version 5, one object).
struct XPCMessage: Equatable {
    struct Flags: OptionSet, Hashable {
        let rawValue: UInt32
        static let alwaysSet = Flags(rawValue: 0x0000_0001)
        static let dataPresent = Flags(rawValue: 0x0000_0100)
        static let wantingReply = Flags(rawValue: 0x0001_0000)
        static let reply = Flags(rawValue: 0x0002_0000)
        static let initHandshake = Flags(rawValue: 0x0040_0000)
    }

    var flags: Flags
    var messageID: UInt64
    var payload: XPCObject?

    static let wrapperMagic: UInt32 = 0x29B0_0B92
    static let payloadMagic: UInt32 = 0x4213_3742
    static let payloadVersion: UInt32 = 5
    static let headerLength = 24
}
