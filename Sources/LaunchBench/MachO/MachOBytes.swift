import Foundation

/// Checked little- and big-endian reads from a binary's bytes: every read names what it wanted when it falls
/// outside the data, so a truncated or lying file fails with a reason and never traps.
struct MachOBytes {
    /// Why a read failed: the field and where it was sought.
    struct OutOfBounds: Error {
        var reason: String
    }

    let data: Data
    /// Where `data` starts in its `Data` (a slice's indices do not start at 0).
    private let base: Int

    init(_ data: Data) {
        self.data = data
        base = data.startIndex
    }

    var count: Int { data.count }

    /// Whether `length` bytes at `offset` lie inside the data (with no overflow on the way).
    func contains(offset: UInt64, length: UInt64) -> Bool {
        let (end, overflow) = offset.addingReportingOverflow(length)
        return !overflow && end <= UInt64(count)
    }

    func bytes(at offset: UInt64, count length: UInt64, _ what: String) throws(OutOfBounds) -> Data {
        guard contains(offset: offset, length: length) else {
            throw OutOfBounds(
                reason: "\(what) (\(length) bytes at offset \(offset)) lies past the end of the \(count)-byte file")
        }
        let start = base + Int(offset)
        return data[start..<(start + Int(length))]
    }

    func uint8(at offset: UInt64, _ what: String) throws(OutOfBounds) -> UInt8 {
        try bytes(at: offset, count: 1, what).first ?? 0
    }

    func uint16(at offset: UInt64, _ what: String) throws(OutOfBounds) -> UInt16 {
        UInt16(truncatingIfNeeded: try little(at: offset, size: 2, what))
    }

    func uint32(at offset: UInt64, _ what: String) throws(OutOfBounds) -> UInt32 {
        UInt32(truncatingIfNeeded: try little(at: offset, size: 4, what))
    }

    func uint64(at offset: UInt64, _ what: String) throws(OutOfBounds) -> UInt64 {
        try little(at: offset, size: 8, what)
    }

    /// A big-endian word (fat headers are big-endian).
    func bigUInt32(at offset: UInt64, _ what: String) throws(OutOfBounds) -> UInt32 {
        UInt32(truncatingIfNeeded: try bytes(at: offset, count: 4, what).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    func bigUInt64(at offset: UInt64, _ what: String) throws(OutOfBounds) -> UInt64 {
        try bytes(at: offset, count: 8, what).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// A fixed-size name field (a segment's or section's 16 bytes), up to its first NUL.
    func name(at offset: UInt64, size: UInt64, _ what: String) throws(OutOfBounds) -> String {
        let field = try bytes(at: offset, count: size, what)
        return String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
    }

    private func little(at offset: UInt64, size: UInt64, _ what: String) throws(OutOfBounds) -> UInt64 {
        try bytes(at: offset, count: size, what).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}
