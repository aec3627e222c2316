/// Escaping for the HTML report, which is also well-formed XML (XHTML syntax), so any XML
/// parser can check it and nothing a device or app says can become markup.
public enum HTMLText {
    /// `text` safe as element content and inside `"…"` or `'…'` attribute values: `& < > " '`
    /// become character references, and characters XML forbids (most C0 controls, U+FFFE,
    /// U+FFFF) become U+FFFD.
    public static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default:
                result.unicodeScalars.append(isAllowedInXML(scalar) ? scalar : "\u{FFFD}")
            }
        }
        return result
    }

    /// XML 1.0's `Char` production.
    static func isAllowedInXML(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }
}
