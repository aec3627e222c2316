/// Escaping and element building for the HTML report, which is also well-formed XML (XHTML
/// syntax), so any XML parser can check it and nothing a device or app says can become markup.
package enum HTMLText {
    /// `text` safe as element content and inside `"…"` or `'…'` attribute values: `& < > " '`
    /// become character references, and characters XML forbids (most C0 controls, U+FFFE,
    /// U+FFFF) become U+FFFD.
    package static func escape(_ text: String) -> String {
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

    /// `<name a="v">content</name>`, attribute values escaped; `content` is markup (escape text first).
    /// A whole self-contained page: `title` is escaped here, `css` and `body` are markup already.
    static func page(title: String, css: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
        <head>
        <meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <title>\(escape(title))</title>
        <style>\(css)</style>
        </head>
        <body>
        \(body)</body>
        </html>

        """
    }

    static func element(_ name: String, _ attributes: KeyValuePairs<String, String>, _ content: String) -> String {
        "<\(name)\(attributeText(attributes))>\(content)</\(name)>"
    }

    /// `<name a="v"/>`, for elements without content (SVG shapes, `meta`).
    static func empty(_ name: String, _ attributes: KeyValuePairs<String, String>) -> String {
        "<\(name)\(attributeText(attributes))/>"
    }

    /// An element whose content is plain text, escaped.
    static func text(_ name: String, _ attributes: KeyValuePairs<String, String>, _ text: String) -> String {
        element(name, attributes, escape(text))
    }

    /// An element without attributes whose content is plain text, escaped.
    static func text(_ name: String, _ text: String) -> String {
        element(name, [:], escape(text))
    }

    private static func attributeText(_ attributes: KeyValuePairs<String, String>) -> String {
        attributes.map { " \($0.key)=\"\(escape($0.value))\"" }.joined()
    }

    /// XML 1.0's `Char` production.
    static func isAllowedInXML(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }
}
