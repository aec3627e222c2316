import Foundation

/// A property list value as libplist models it, in Swift. Lockdown values, installd statuses and
/// service options cross the C boundary as this type (see `PlistNode`).
enum PropertyListValue: Sendable, Hashable {
    case string(String)
    /// libplist stores integers unsigned (`PLIST_UINT`).
    case integer(UInt64)
    case real(Double)
    case bool(Bool)
    case date(Date)
    case data([UInt8])
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])
    /// Keyed-archiver object reference (`PLIST_UID`).
    case uid(UInt64)

    subscript(key: String) -> PropertyListValue? {
        if case .dictionary(let entries) = self { return entries[key] }
        return nil
    }

    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var integerValue: UInt64? {
        if case .integer(let number) = self { return number }
        return nil
    }

    var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    var dictionaryValue: [String: PropertyListValue]? {
        if case .dictionary(let entries) = self { return entries }
        return nil
    }

    /// The value as Foundation's property list objects (for `PropertyListSerialization`).
    var foundationObject: Any {
        switch self {
        case .string(let text): return text
        case .integer(let number): return NSNumber(value: number)
        case .real(let number): return NSNumber(value: number)
        case .bool(let flag): return NSNumber(value: flag)
        case .date(let date): return date
        case .data(let bytes): return Data(bytes)
        case .array(let items): return items.map(\.foundationObject)
        case .dictionary(let entries): return entries.mapValues(\.foundationObject)
        case .uid(let number): return ["CF$UID": NSNumber(value: number)]
        }
    }
}

extension PropertyListValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    init(stringLiteral value: String) { self = .string(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(integerLiteral value: UInt64) { self = .integer(value) }
    init(arrayLiteral elements: PropertyListValue...) { self = .array(elements) }
    init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
