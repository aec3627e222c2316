/// The GDB remote serial protocol as debugserver speaks it: framing, hex, reply kinds.
/// Pure Swift so it is unit-tested without a device.
enum GDBRemote {
    /// `$payload#XX` with the checksum (sum of payload bytes mod 256) in upper-case hex, like libimobiledevice.
    static func frame(_ payload: String) -> [UInt8] {
        let bytes = Array(payload.utf8)
        let sum = bytes.reduce(UInt8(0)) { $0 &+ $1 }
        return Array("$".utf8) + bytes + Array("#".utf8) + hex([sum], uppercase: true)
    }

    static func hex(_ bytes: [UInt8], uppercase: Bool = false) -> [UInt8] {
        let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            result.append(digits[Int(byte >> 4)])
            result.append(digits[Int(byte & 0xF)])
        }
        return result
    }

    /// Decodes hex digits (either case); a trailing odd digit or a non-digit ends the decoding.
    static func unhex<Bytes: Collection<UInt8>>(_ text: Bytes) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(text.count / 2)
        var high: UInt8?
        for character in text {
            guard let value = nibble(character) else { break }
            if let first = high {
                result.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return result
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return character - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// What a debugserver packet means to the launch loop.
    enum Reply: Sendable, Hashable {
        /// `O<hex>`: the app's stdout/stderr.
        case output([UInt8])
        /// `W<hex status>`: the app exited by itself.
        case exited(status: Int)
        /// `X<hex signal>`: the app was killed by a signal.
        case signaled(signal: Int)
        /// `T<hex signal>…`/`S<hex signal>`: the app stopped (a crash, for a launch).
        case stopped(signal: Int)
        /// `OK`.
        case ok
        /// `E…`: an error, with debugserver's text.
        case error(String)
        /// Anything else (including the empty "unsupported" reply).
        case other(String)

        init(payload: [UInt8]) {
            let text = String(decoding: payload, as: UTF8.self)
            guard let kind = payload.first else {
                self = .other("")
                return
            }
            let rest = payload.dropFirst()
            switch kind {
            case UInt8(ascii: "O") where text != "OK":
                self = .output(GDBRemote.unhex(rest))
            case UInt8(ascii: "O"):
                self = .ok
            case UInt8(ascii: "W"):
                self = .exited(status: GDBRemote.leadingHexNumber(rest) ?? 0)
            case UInt8(ascii: "X"):
                self = .signaled(signal: GDBRemote.leadingHexNumber(rest) ?? 0)
            case UInt8(ascii: "T"), UInt8(ascii: "S"):
                self = .stopped(signal: GDBRemote.leadingHexNumber(rest.prefix(2)) ?? 0)
            case UInt8(ascii: "E"):
                self = .error(String(decoding: rest, as: UTF8.self))
            default:
                self = .other(text)
            }
        }
    }

    /// The hex number at the start (`00;description:…` → 0).
    static func leadingHexNumber<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int? {
        var value = 0
        var digits = 0
        for byte in bytes {
            guard let digit = nibble(byte), digits < 8 else { break }
            value = value << 4 | Int(digit)
            digits += 1
        }
        return digits == 0 ? nil : value
    }
}

/// Splits a byte stream from debugserver into packet payloads: skips `+`/`-` acks and stray bytes
/// between packets, takes `$payload#xx`, and does not verify checksums (libimobiledevice does not
/// either once in no-ack mode; a transport error shows up as a broken connection instead).
struct GDBPacketReader {
    private var buffer: [UInt8] = []
    private var start = 0
    /// Where the search for the open packet's `#` goes on: over TLS bytes arrive one at a time, and
    /// searching the whole packet again for each would make reading a packet quadratic in its length.
    private var scanned = 0

    mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete packet's payload, or `nil` until more bytes arrive.
    mutating func next() -> [UInt8]? {
        guard let dollar = buffer[start...].firstIndex(of: UInt8(ascii: "$")) else {
            buffer.removeAll(keepingCapacity: true)
            start = 0
            scanned = 0
            return nil
        }
        let hash = buffer[max(dollar + 1, scanned)...].firstIndex(of: UInt8(ascii: "#"))
        guard let hash, hash + 2 < buffer.count else {
            scanned = hash ?? buffer.count
            start = dollar
            compact()
            return nil
        }
        let payload = Array(buffer[(dollar + 1)..<hash])
        start = hash + 3
        scanned = start
        compact()
        return payload
    }

    /// Takes the bytes not yet returned as packets (to hand them to another reader).
    mutating func drain() -> [UInt8] {
        defer {
            buffer.removeAll(keepingCapacity: true)
            start = 0
            scanned = 0
        }
        return Array(buffer[start...])
    }

    private mutating func compact() {
        if start > 4096 || start == buffer.count {
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
    }
}
