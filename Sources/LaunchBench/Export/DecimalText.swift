/// Numbers as text with `.` decimals and no grouping, independent of the user's locale (a
/// German or French locale must not turn `412.5` into `412,5` inside a comma-separated file).
package enum DecimalText {
    /// Rounded to at most `maxFractionDigits` decimals, trailing zeros and a bare point trimmed:
    /// `fixed(412.5004, 3) == "412.5"`, `fixed(3, 3) == "3"`, `fixed(-0.0001, 3) == "0"`.
    package static func fixed(_ value: Double, maxFractionDigits: Int) -> String {
        precondition(maxFractionDigits >= 0 && maxFractionDigits <= 9)
        guard value.isFinite else { return "" }
        var scale = 1.0
        for _ in 0..<maxFractionDigits { scale *= 10 }
        let scaled = (value * scale).rounded()
        // Beyond 2^53 there are no fractional digits left to show; exponent form still reads back.
        guard abs(scaled) < 9.0e15 else { return value.description }
        let integer = Int64(scaled)
        if integer == 0 { return "0" }
        let negative = integer < 0
        let magnitude = integer.magnitude
        let unit = UInt64(scale)
        var text = String(magnitude / unit)
        var fraction = String(magnitude % unit)
        if maxFractionDigits > 0 {
            fraction = String(repeating: "0", count: maxFractionDigits - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            if !fraction.isEmpty { text += "." + fraction }
        }
        return (negative ? "-" : "") + text
    }

    /// The shortest text that reads back as the same `Double` (`412.5`, `0.1`, `3`); exponent
    /// form only for magnitudes of 10¹⁶ and more, which no duration reaches.
    static func shortest(_ value: Double) -> String {
        guard value.isFinite else { return "" }
        var text = value.description  // Swift's shortest round-trip form; locale-independent
        if text.contains("e") {
            // Below 10⁻⁴ Swift uses exponent form: nanosecond precision is plenty for ms values.
            guard abs(value) < 1 else { return text }
            text = fixed(value, maxFractionDigits: 9)
        }
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text == "-0" ? "0" : text
    }

    /// Exactly `fractionDigits` decimals, zeros kept (`exact(412.5, 1) == "412.5"`, `exact(3, 1) == "3.0"`):
    /// for columns of a table, where aligned decimals read best.
    package static func exact(_ value: Double, fractionDigits: Int) -> String {
        let text = fixed(value, maxFractionDigits: fractionDigits)
        guard fractionDigits > 0, !text.contains("e") else { return text }
        guard let point = text.firstIndex(of: ".") else {
            return text + "." + String(repeating: "0", count: fractionDigits)
        }
        let present = text.distance(from: text.index(after: point), to: text.endIndex)
        return text + String(repeating: "0", count: fractionDigits - present)
    }
}
