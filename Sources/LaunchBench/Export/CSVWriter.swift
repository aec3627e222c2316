import Foundation

/// RFC 4180 CSV text: fields quoted when they hold `,` `"` CR or LF (inner quotes doubled), lines
/// ended by CRLF, and cells a spreadsheet would run as a formula neutralised.
///
/// Two ways to use it: the static helpers for rows of ready-made strings (`line`, `document`,
/// `escape`), or an instance with typed fields (`append([.text(name), .number(ms)])`), which
/// writes numbers itself with `.` decimals whatever the locale and never neutralises them.
package struct CSVWriter: Sendable {
    /// One cell.
    package enum Field: Sendable, Hashable {
        /// Any text, quoted and neutralised as needed (see `escape`).
        case text(String)
        /// A number, `.` decimals, at most `fractionDigits` digits after the point (trailing zeros
        /// trimmed; halves rounded away from zero); `nil` digits for the shortest text that reads
        /// back as the same `Double`. Non-finite values and `nil` write an empty cell.
        case number(Double?, fractionDigits: Int? = nil)
        /// A whole number in decimal digits; `nil` writes an empty cell.
        case integer(Int?)
        /// Not measured.
        case empty
    }

    /// The records so far, escaped and without line ends; the header is the first.
    package private(set) var lines: [String] = []

    /// - Parameter header: column names, written as the first line.
    package init(header: [String]) {
        lines.append(header.map(Self.escape).joined(separator: ","))
    }

    /// Appends one record, each field written by `render(_:)`; the count is not checked against the header.
    package mutating func append(_ fields: [Field]) {
        lines.append(fields.map(Self.render).joined(separator: ","))
    }

    /// The whole file: lines ended by CRLF (the last one too).
    package var text: String { lines.map { $0 + "\r\n" }.joined() }

    /// The file as UTF-8, optionally starting with a byte-order mark (`EF BB BF`).
    ///
    /// Files written into a results folder carry the BOM: Excel reads a CSV without one in the
    /// system's legacy code page and garbles every non-ASCII device name, while LibreOffice,
    /// Numbers, Google Sheets, pandas (`encoding="utf-8-sig"`) and Python's csv (`utf-8-sig`)
    /// accept it. CSV printed on stdout has none, for pipes into other tools.
    package func data(byteOrderMark: Bool) -> Data {
        (byteOrderMark ? Data([0xEF, 0xBB, 0xBF]) : Data()) + Data(text.utf8)
    }

    /// A typed field as it appears in the file.
    package static func render(_ field: Field) -> String {
        switch field {
        case .text(let text): return escape(text)
        case .number(let value, let digits):
            guard let value, value.isFinite else { return "" }
            return digits.map { DecimalText.fixed(value, maxFractionDigits: $0) } ?? DecimalText.shortest(value)
        case .integer(let value): return value.map(String.init) ?? ""
        case .empty: return ""
        }
    }

    /// One record: the escaped fields joined by commas, ended by CRLF.
    package static func line(_ fields: [String]) -> String {
        fields.map(escape).joined(separator: ",") + "\r\n"
    }

    /// A whole table: header line, then one line per row.
    package static func document(header: [String], rows: [[String]]) -> String {
        ([header] + rows).map(line).joined()
    }

    /// One field. A cell starting with `=` `+` `-` `@` tab or CR (a formula to Excel, LibreOffice
    /// and Sheets) gets a leading `'` so it stays text (OWASP's advice; device names are user-set);
    /// plain numbers such as `-1.5` are left alone.
    package static func escape(_ field: String) -> String {
        var value = field
        if let first = value.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first), !isPlainNumber(value) {
            value = "'" + value
        }
        let needsQuotes = value.utf8.contains {
            $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D
        }
        guard needsQuotes else { return value }
        var quoted = "\""
        for character in value {
            quoted.append(character)
            if character == "\"" { quoted.append("\"") }
        }
        return quoted + "\""
    }

    /// `-12`, `+3.5`, `-0.25`: digits with at most one point after an optional sign.
    private static func isPlainNumber(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            bytes = bytes.dropFirst()
        }
        guard !bytes.isEmpty else { return false }
        var points = 0
        var digits = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                points += 1
            } else if byte >= 0x30 && byte <= 0x39 {
                digits += 1
            } else {
                return false
            }
        }
        return points <= 1 && digits > 0
    }
}
