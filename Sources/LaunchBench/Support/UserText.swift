/// The one escaper for text launchbench does not control (device names, app names, paths, messages from the
/// phone), per kind of output. A phone may be named `Lab\r\nGate: PASSED`: printed raw, that name would make
/// a line of its own in a CI log and fake the gate's verdict.
///
/// Every output kind first makes the text one line: each line break — LF, CR, CRLF (one `Character` in
/// Swift, so it is taken apart into Unicode scalars here), NEL (U+0085), LINE SEPARATOR and PARAGRAPH
/// SEPARATOR (U+2028/2029), vertical tab, form feed — and every other control character (ESC of terminal
/// escape sequences, NUL, C1 controls) becomes a visible `\u{…}` escape.
package enum UserText {
    /// One line of a log or terminal (stderr `note:` lines, the text reports): control characters and line
    /// breaks as `\u{…}`.
    package static func logLine(_ text: String) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if breaksOrControls(scalar) {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// A cell of a plain-text table (`devices`, the gate's and the report's tables): one line, as
    /// `logLine`, so a cell can neither start a row of its own nor redraw the terminal.
    static func tableCell(_ text: String) -> String { logLine(text) }

    /// Text inside Markdown, GFM table cells included: one line, as `logLine`, then Markdown punctuation
    /// backslash-escaped (so `|` cannot split a cell, `<` cannot open HTML, `#` cannot start a heading).
    package static func markdown(_ text: String) -> String {
        var result = ""
        for character in logLine(text) {
            if markdownSpecials.contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// Text inside a Markdown code span: one line, as `logLine`; backticks cannot be escaped there, so they
    /// become `'`.
    static func markdownCode(_ text: String) -> String {
        String(logLine(text).map { $0 == "`" ? "'" : $0 })
    }

    /// Whether a scalar would end a line or control the terminal: the general category Cc (C0, DEL, C1,
    /// NEL among them) and the Unicode line and paragraph separators (Zl, Zp).
    static func breaksOrControls(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    private static let markdownSpecials: Set<Character> = [
        "\\", "|", "`", "*", "_", "[", "]", "<", ">", "&", "~", "$", "#", "!",
    ]
}
