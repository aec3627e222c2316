internal import CIMobileDevice
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Owns one root `plist_t` and frees it in `deinit`. The raw node is lent out only inside `withHandle`.
/// Not Sendable: it stays on the device actor that made it.
final class PlistNode {
    private let handle: plist_t

    /// Takes ownership of a root node the library handed back; `nil` when the pointer is NULL.
    init?(owning handle: plist_t?) {
        guard let handle else { return nil }
        self.handle = handle
    }

    /// Builds a new C plist tree from a Swift value.
    init(_ value: PropertyListValue) {
        handle = Self.makeNode(value)
    }

    /// Parses XML with libplist; `nil` when it is not a property list.
    convenience init?(xml: String) {
        var node: plist_t?
        let bytes = Array(xml.utf8)
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { plist_from_xml($0.baseAddress, UInt32($0.count), &node) }
        }
        self.init(owning: node)
    }

    deinit { plist_free(handle) }

    /// Lends the raw node; it must not be freed or kept beyond the closure.
    func withHandle<Result>(_ body: (plist_t) throws -> Result) rethrows -> Result {
        try body(handle)
    }

    /// Gives the node up to a C call that takes ownership of it (`plist_dict_set_item`…).
    func copyHandle() -> plist_t { plist_copy(handle) }

    /// The tree as a Swift value.
    var value: PropertyListValue { Self.value(of: handle) }

    /// libplist's XML serialization.
    var xml: String {
        var text: UnsafeMutablePointer<CChar>?
        var length: UInt32 = 0
        plist_to_xml(handle, &text, &length)
        guard let text else { return "" }
        defer { plist_to_xml_free(text) }
        return String(decoding: UnsafeRawBufferPointer(start: text, count: Int(length)), as: UTF8.self)
    }

    /// Reads a node the caller keeps owning (a child, or a callback argument).
    static func value(of node: plist_t) -> PropertyListValue {
        switch plist_get_node_type(node) {
        case PLIST_BOOLEAN:
            var flag: UInt8 = 0
            plist_get_bool_val(node, &flag)
            return .bool(flag != 0)
        case PLIST_UINT:
            var number: UInt64 = 0
            plist_get_uint_val(node, &number)
            return .integer(number)
        case PLIST_REAL:
            var number: Double = 0
            plist_get_real_val(node, &number)
            return .real(number)
        case PLIST_STRING:
            var text: UnsafeMutablePointer<CChar>?
            plist_get_string_val(node, &text)
            defer { free(text) }
            return .string(text.map { String(cString: $0) } ?? "")
        case PLIST_KEY:
            var text: UnsafeMutablePointer<CChar>?
            plist_get_key_val(node, &text)
            defer { free(text) }
            return .string(text.map { String(cString: $0) } ?? "")
        case PLIST_DATA:
            var bytes: UnsafeMutablePointer<CChar>?
            var length: UInt64 = 0
            plist_get_data_val(node, &bytes, &length)
            defer { free(bytes) }
            guard let bytes else { return .data([]) }
            return .data(Array(UnsafeRawBufferPointer(start: bytes, count: Int(length))))
        case PLIST_DATE:
            var seconds: Int32 = 0
            var microseconds: Int32 = 0
            plist_get_date_val(node, &seconds, &microseconds)
            // libplist 2.x counts from 2001-01-01, like Foundation's reference date.
            return .date(Date(timeIntervalSinceReferenceDate: Double(seconds) + Double(microseconds) / 1_000_000))
        case PLIST_UID:
            var number: UInt64 = 0
            plist_get_uid_val(node, &number)
            return .uid(number)
        case PLIST_ARRAY:
            let count = plist_array_get_size(node)
            return .array((0..<count).compactMap { index in plist_array_get_item(node, index).map(value(of:)) })
        case PLIST_DICT:
            var entries: [String: PropertyListValue] = [:]
            var iterator: plist_dict_iter?
            plist_dict_new_iter(node, &iterator)
            guard let iterator else { return .dictionary([:]) }
            defer { free(iterator) }
            while true {
                var key: UnsafeMutablePointer<CChar>?
                var item: plist_t?
                plist_dict_next_item(node, iterator, &key, &item)
                guard let item else {
                    free(key)
                    break
                }
                if let key {
                    entries[String(cString: key)] = value(of: item)
                    free(key)
                }
            }
            return .dictionary(entries)
        default:
            return .dictionary([:])
        }
    }

    /// A new C node (owned by the caller) for a Swift value.
    static func makeNode(_ value: PropertyListValue) -> plist_t {
        switch value {
        case .string(let text): return plist_new_string(text)
        case .integer(let number): return plist_new_uint(number)
        case .real(let number): return plist_new_real(number)
        case .bool(let flag): return plist_new_bool(flag ? 1 : 0)
        case .date(let date):
            let interval = date.timeIntervalSinceReferenceDate
            // plist dates hold 32-bit seconds since 2001: a date past them (±68 years) is clamped, not a trap.
            let seconds = min(max(interval.isFinite ? interval.rounded(.down) : 0, -2_147_483_648), 2_147_483_647)
            let micros = interval.isFinite ? min(max(((interval - seconds) * 1_000_000).rounded(), 0), 999_999) : 0
            return plist_new_date(Int32(seconds), Int32(micros))
        case .data(let bytes):
            return bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { plist_new_data($0.baseAddress, UInt64($0.count)) }
            }
        case .uid(let number): return plist_new_uid(number)
        case .array(let items):
            let array = plist_new_array()!
            for item in items { plist_array_append_item(array, makeNode(item)) }
            return array
        case .dictionary(let entries):
            let dictionary = plist_new_dict()!
            for (key, item) in entries { plist_dict_set_item(dictionary, key, makeNode(item)) }
            return dictionary
        }
    }
}
