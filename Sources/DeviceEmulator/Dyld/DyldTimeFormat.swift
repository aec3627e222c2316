/// dyld's `printTime`: values truncated (never rounded) to 0.01 ms below one second and to 0.1 s
/// from one second on, percentages truncated to 0.1 % (dyld-852.2 src/ImageLoader.cpp:1681–1709: integer
/// divisions at 1691–1693 and 1703–1705; the same in dyld-360.22 :1031–1054). Counters are µs here, ticks
/// there; a division of whole µs truncates as dyld's of whole ticks does.
enum DyldTimeFormat {
    /// `<label>: <value> (<percent>%)` as dyld 421+ prints it: one, two or three spaces after the colon
    /// for values ≥ 100, ≥ 10 and < 10 ms; seconds never padded.
    static func line(_ label: String, _ us: UInt64, of totalUs: UInt64, padded: Bool = true) -> String {
        if us > UInt64(Int64.max) { return wrappedLine(label, us, of: totalUs) }
        return "\(label):\(value(us, padded: padded)) (\(percent(us, of: totalUs))%)"
    }

    /// arm64 devices count in 24 MHz ticks.
    static let ticksPerSecond: UInt64 = 24_000_000

    /// A "negative" value (dyld subtracted unsigned counters and went below zero), printed the way dyld's
    /// 64-bit arithmetic and 32-bit casts print it on arm64: `411015771.5/.6 seconds` and an absurd
    /// percentage.
    static func wrappedLine(_ label: String, _ us: UInt64, of totalUs: UInt64) -> String {
        let ticks = us &* (ticksPerSecond / 1_000_000)
        let totalTicks = max(1, totalUs &* (ticksPerSecond / 1_000_000))
        let secondsTimesTen = UInt32(truncatingIfNeeded: (ticks &* 10) / ticksPerSecond)
        let percentTimesTen = UInt32(truncatingIfNeeded: (ticks &* 1000) / totalTicks)
        return
            "\(label): \(secondsTimesTen / 10).\(secondsTimesTen % 10) seconds (\(percentTimesTen / 10).\(percentTimesTen % 10)%)"
    }

    /// The value with its leading spaces, e.g. `  5.91 milliseconds` or ` 1.9 seconds` (1.99 s prints `1.9`:
    /// `secondsTimeTen = (partTime*10)/sUnitsPerSecond`, ImageLoader.cpp:1703).
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
