/// RFC 4180 CSV text: fields quoted when they hold `,` `"` CR or LF, lines ended by CRLF, and
/// cells a spreadsheet would run as a formula neutralised.
public enum CSVWriter {
    /// One record: the escaped fields joined by commas, ended by CRLF.
    public static func line(_ fields: [String]) -> String {
        fields.map(escape).joined(separator: ",") + "\r\n"
    }

    /// A whole table: header line, then one line per row.
    public static func document(header: [String], rows: [[String]]) -> String {
        ([header] + rows).map(line).joined()
    }

    /// One field. A cell starting with `=` `+` `-` `@` tab or CR (a formula to Excel, LibreOffice
    /// and Sheets) gets a leading `'` so it stays text; plain numbers such as `-1.5` are left alone.
    public static func escape(_ field: String) -> String {
        var value = field
        if let first = value.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first), !isPlainNumber(value) {
            value = "'" + value
        }
        let needsQuotes = value.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
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
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
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
