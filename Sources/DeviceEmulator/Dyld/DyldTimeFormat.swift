/// dyld's `printTime`: values truncated (never rounded) to 0.01 ms below one second and to 0.1 s
/// from one second on, percentages truncated to 0.1 %.
enum DyldTimeFormat {
    /// `<label>: <value> (<percent>%)` as dyld 421+ prints it: one, two or three spaces after the colon
    /// for values ≥ 100, ≥ 10 and < 10 ms; seconds never padded.
    static func line(_ label: String, _ us: UInt64, of totalUs: UInt64, padded: Bool = true) -> String {
        "\(label):\(value(us, padded: padded)) (\(percent(us, of: totalUs))%)"
    }

    /// The value with its leading spaces, e.g. `  5.91 milliseconds` or ` 1.9 seconds`.
    static func value(_ us: UInt64, padded: Bool) -> String {
        if us < 1_000_000 {
            let hundredths = us / 10
            let ms = hundredths / 100
            let fraction = hundredths % 100
            let pad = !padded ? " " : ms >= 100 ? " " : ms >= 10 ? "  " : "   "
            return "\(pad)\(ms).\(fraction < 10 ? "0" : "")\(fraction) milliseconds"
        }
        let tenths = us / 100_000
        return " \(tenths / 10).\(tenths % 10) seconds"
    }

    static func percent(_ us: UInt64, of totalUs: UInt64) -> String {
        guard totalUs > 0 else { return "0.0" }
        let tenths = us.multipliedReportingOverflow(by: 1000).partialValue / totalUs
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// `18,064`: dyld's `commatize`.
    static func commas(_ n: Int) -> String {
        let digits = Array(String(n))
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return out
    }

    /// Right-aligns `name` in `width` bytes, as `printf("%30s")` does (UTF-8 names count bytes).
    static func rightAligned(_ name: String, width: Int) -> String {
        let bytes = name.utf8.count
        return bytes >= width ? name : String(repeating: " ", count: width - bytes) + name
    }
}
