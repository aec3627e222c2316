import Foundation

/// Plist encoding as the client libraries accept it: XML, with real `<integer>` and `<true/>` types.
enum PropertyList {
    /// XML bytes of a dictionary. The values must be plist types (String, Int, Bool, Data, Date, arrays, dicts).
    static func xml(_ dictionary: [String: Any]) -> Data {
        do {
            return try PropertyListSerialization.data(fromPropertyList: dictionary, format: .xml, options: 0)
        } catch {
            // Only reachable with a non-plist value in the emulator's own replies: a programming error.
            preconditionFailure("DeviceEmulator built a reply that is not a property list: \(error)")
        }
    }

    /// A dictionary from XML or binary plist bytes; `nil` when the bytes are not a plist dictionary.
    static func dictionary(from data: Data) -> [String: Any]? {
        guard let object = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) else {
            return nil
        }
        return object as? [String: Any]
    }

    /// An integer from a decoded plist value, whatever numeric type Foundation chose for it.
    static func integer(_ value: Any?) -> Int? {
        switch value {
        case let int as Int: return int
        case let uint as UInt64: return Int(exactly: uint)
        case let int64 as Int64: return Int(exactly: int64)
        case let number as NSNumber: return number.intValue
        default: return nil
        }
    }
}
