/// A time dyld printed, as read from one line.
enum DyldTime: Equatable {
    /// The value in ms as printed (dyld truncates: the true value is up to 0.01 ms, or 100 ms when
    /// `inSeconds`, above it), and its percentage of the block's total in tenths (`(92.0%)` → 920), when read.
    case ms(Double, inSeconds: Bool, percentTenths: Int?)
    /// A value no launch can take: dyld subtracted unsigned 64-bit counters and the result wrapped.
    case implausible(String)
    /// Not a number with a unit (a line cut short, or garbage).
    case unreadable(String)

    var value: Double? {
        if case .ms(let value, _, _) = self { return value }
        return nil
    }

    var inSeconds: Bool {
        if case .ms(_, let inSeconds, _) = self { return inSeconds }
        return false
    }

    var percentTenths: Int? {
        if case .ms(_, _, let percent) = self { return percent }
        return nil
    }
}

/// Reads dyld's numbers from bytes exactly: a decimal mantissa divided by a power of ten, so
/// `236.72` becomes the same Double as `Double("236.72")` without allocating a String.
enum DyldNumbers {
    /// Anything from 1 000 000 s (11.6 days) up is dyld's wrap artefact (`411015771.5 seconds` on arm64).
    static let implausibleMs = 1_000_000_000.0

    private static let powersOfTen: [Double] = (0...18).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// A decimal `123` or `123.45` at `offset`: its mantissa, digits after the point and end offset.
    static func decimal(in line: LineBytes, at offset: Int) -> (mantissa: UInt64, fractionDigits: Int, end: Int)? {
        var i = offset
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = 0
        var sawPoint = false
        while i < line.count {
            let byte = line[i]
            if byte >= 0x30 && byte <= 0x39 {
                guard digits < 18 else { return nil }
                mantissa = mantissa * 10 + UInt64(byte - 0x30)
                digits += 1
                if sawPoint { fraction += 1 }
            } else if byte == UInt8(ascii: "."), !sawPoint, digits > 0 {
                sawPoint = true
            } else {
                break
            }
            i += 1
        }
        guard digits > 0 else { return nil }
        if sawPoint && fraction == 0 { return nil }  // `12.` is a value cut short
        return (mantissa, fraction, i)
    }

    /// `mantissa / 10^fractionDigits * 10^scale`, correctly rounded.
    static func value(mantissa: UInt64, fractionDigits: Int, scale: Int = 0) -> Double {
        let exponent = scale - fractionDigits
        if exponent >= 0 {
            return Double(mantissa) * powersOfTen[exponent]
        }
        return Double(mantissa) / powersOfTen[-exponent]
    }

    /// A time after a label: blanks, `<number> milliseconds|seconds`, then anything (the percentage).
    static func time(in line: LineBytes, after offset: Int) -> DyldTime {
        var start = line.skipBlanks(from: offset)
        if line.hasPrefix("**", at: start) { start = line.skipBlanks(from: start + 2) }  // `**label:** value`
        let raw = { line.string(from: start, to: line.count) }
        guard let number = decimal(in: line, at: start), number.end < line.count, line[number.end] == 0x20 else {
            return .unreadable(raw())
        }
        let unitStart = number.end + 1
        let inSeconds: Bool
        let unitEnd: Int
        if line.hasPrefix("milliseconds", at: unitStart) {
            inSeconds = false
            unitEnd = unitStart + 12
        } else if line.hasPrefix("seconds", at: unitStart) {
            inSeconds = true
            unitEnd = unitStart + 7
        } else {
            return .unreadable(raw())
        }
        guard unitEnd == line.count || line[unitEnd] == 0x20 || line[unitEnd] == UInt8(ascii: "(") else {
            return .unreadable(raw())
        }
        let ms = value(mantissa: number.mantissa, fractionDigits: number.fractionDigits, scale: inSeconds ? 3 : 0)
        if ms >= implausibleMs {
            return .implausible(line.string(from: start, to: unitEnd))
        }
        return .ms(ms, inSeconds: inSeconds, percentTenths: percentTenths(in: line, after: unitEnd))
    }

    /// ` (92.0%)` after a time, in tenths of a percent (dyld-852.2 src/ImageLoader.cpp:1693, 1705 print
    /// `%u.%u%%`); `nil` when absent or cut short.
    static func percentTenths(in line: LineBytes, after offset: Int) -> Int? {
        let open = line.skipBlanks(from: offset)
        guard open < line.count, line[open] == UInt8(ascii: "("),
            let number = decimal(in: line, at: open + 1), number.fractionDigits <= 1,
            number.end < line.count, line[number.end] == UInt8(ascii: "%"), number.mantissa < 1 << 53
        else { return nil }
        let tenths = Int(number.mantissa)
        return number.fractionDigits == 1 ? tenths : tenths * 10
    }

    /// A count with optional thousands commas (`528,059`) at `offset` (after blanks).
    static func count(in line: LineBytes, at offset: Int) -> (value: Int, end: Int)? {
        var i = line.skipBlanks(from: offset)
        var value = 0
        var digits = 0
        while i < line.count {
            let byte = line[i]
            if byte >= 0x30 && byte <= 0x39 {
                guard digits < 18 else { return nil }
                value = value * 10 + Int(byte - 0x30)
                digits += 1
            } else if byte == UInt8(ascii: ","), digits > 0, i + 1 < line.count, line[i + 1] >= 0x30,
                line[i + 1] <= 0x39
            {
                // thousands separator
            } else {
                break
            }
            i += 1
        }
        return digits > 0 ? (value, i) : nil
    }

    /// Rounds a derived value to dyld's resolution (0.01 ms) so sums print as dyld would.
    static func roundedToHundredths(_ value: Double) -> Double {
        (value * 100).rounded() / 100
    }
}
