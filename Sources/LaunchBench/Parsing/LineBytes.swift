/// One line of input as a window into a byte buffer: no copy, no String until a value is kept.
///
/// Offsets passed to its methods are relative to `lo`. The buffer must outlive the value
/// (it is only used inside the parser's `withUnsafeBufferPointer` scopes).
struct LineBytes {
    let buffer: UnsafeBufferPointer<UInt8>
    var lo: Int
    var hi: Int

    init(_ buffer: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int) {
        self.buffer = buffer
        self.lo = lo
        self.hi = hi
    }

    var count: Int { hi - lo }
    var isEmpty: Bool { hi <= lo }

    @inline(__always) subscript(offset: Int) -> UInt8 { buffer[lo + offset] }

    @inline(__always) static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// Leading spaces and tabs: how far dyld (or an author) indented the line.
    mutating func trimLeadingBlanks() -> Int {
        let start = lo
        while lo < hi, Self.isBlank(buffer[lo]) { lo += 1 }
        return lo - start
    }

    mutating func trimTrailingBlanks() {
        while hi > lo, Self.isBlank(buffer[hi - 1]) || buffer[hi - 1] == 0x0D { hi -= 1 }
    }

    /// Strips what people add when they paste dyld output into Markdown: blanks, `> ` quote
    /// marks (nested too) and `**` bold marks at either end. Returns the indentation dyld used.
    mutating func normalize() -> Int {
        trimTrailingBlanks()
        var indent = trimLeadingBlanks()
        while lo < hi, buffer[lo] == UInt8(ascii: ">") {
            lo += 1
            indent = max(0, trimLeadingBlanks() - 1)  // `> ` : the first blank belongs to the quote mark
        }
        if hasPrefix("**") {
            lo += 2
            indent = trimLeadingBlanks()
        }
        if count >= 2, buffer[hi - 1] == UInt8(ascii: "*"), buffer[hi - 2] == UInt8(ascii: "*") {
            hi -= 2
            trimTrailingBlanks()
        }
        return indent
    }

    @inline(__always) func hasPrefix(_ literal: StaticString, at offset: Int = 0) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard offset >= 0, count - offset >= n else { return false }
        let p = literal.utf8Start
        var i = 0
        while i < n {
            if buffer[lo + offset + i] != p[i] { return false }
            i += 1
        }
        return true
    }

    /// The first offset at or after `from` where `literal` starts.
    func firstOffset(of literal: StaticString, from: Int = 0) -> Int? {
        let n = literal.utf8CodeUnitCount
        guard n > 0 else { return from }
        let first = literal.utf8Start[0]
        var i = max(0, from)
        while i + n <= count {
            if buffer[lo + i] == first, hasPrefix(literal, at: i) { return i }
            i += 1
        }
        return nil
    }

    /// The bytes between two offsets as a String (invalid UTF-8 repaired), blanks trimmed.
    func string(from: Int, to: Int) -> String {
        var a = lo + from
        var b = lo + to
        while a < b, Self.isBlank(buffer[a]) { a += 1 }
        while b > a, Self.isBlank(buffer[b - 1]) { b -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: buffer[a..<b]), as: UTF8.self)
    }

    var text: String { string(from: 0, to: count) }

    /// Skips blanks from `offset`; returns the first offset that is not a blank.
    func skipBlanks(from offset: Int) -> Int {
        var i = offset
        while i < count, Self.isBlank(self[i]) { i += 1 }
        return i
    }
}
