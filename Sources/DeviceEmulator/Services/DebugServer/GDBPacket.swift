/// GDB remote serial protocol framing: `$payload#cs`, acks `+`/`-`, hex helpers.
enum GDBPacket {
    /// Sum of the payload bytes mod 256.
    static func checksum<S: Sequence>(_ payload: S) -> UInt8 where S.Element == UInt8 {
        payload.reduce(0) { $0 &+ $1 }
    }

    /// `$payload#cs` with a lowercase checksum, as debugserver sends (`#00` in no-ack mode).
    static func frame(_ payload: [UInt8], noAck: Bool = false) -> [UInt8] {
        let sum = noAck ? 0 : checksum(payload)
        return [UInt8(ascii: "$")] + payload + [UInt8(ascii: "#")] + Array(hex([sum]).utf8)
    }

    static func frame(_ payload: String, noAck: Bool = false) -> [UInt8] { frame(Array(payload.utf8), noAck: noAck) }

    /// Lowercase hex of `bytes`.
    static func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes of a hex string (either case); `nil` on odd length or a non-hex digit.
    static func unhex<S: StringProtocol>(_ text: S) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        var index = 0
        while index < chars.count {
            guard let high = nibble(chars[index]), let low = nibble(chars[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// debugserver's binary escaping for `E<message>` text: `#`, `$`, `}`, `*` become `}` + (byte ^ 0x20).
    static func escape(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        for byte in text.utf8 {
            if byte == UInt8(ascii: "#") || byte == UInt8(ascii: "$") || byte == UInt8(ascii: "}")
                || byte == UInt8(ascii: "*")
            {
                out.append(UInt8(ascii: "}"))
                out.append(byte ^ 0x20)
            } else {
                out.append(byte)
            }
        }
        return out
    }
}

/// What arrives from a GDB client, one unit at a time.
enum GDBInbound: Equatable {
    case ack
    case nak
    /// Ctrl-C (0x03) outside a packet.
    case interrupt
    /// A packet's payload; `checksumOK` is false when the checksum did not match (case-insensitive).
    case packet([UInt8], checksumOK: Bool)
}

/// Splits the client's byte stream into acks, interrupts and packets; other stray bytes are skipped.
struct GDBStreamParser {
    private var buffer: [UInt8] = []

    mutating func feed(_ bytes: [UInt8]) -> [GDBInbound] {
        buffer += bytes
        var out: [GDBInbound] = []
        var index = 0
        scan: while index < buffer.count {
            switch buffer[index] {
            case UInt8(ascii: "+"):
                out.append(.ack)
                index += 1
            case UInt8(ascii: "-"):
                out.append(.nak)
                index += 1
            case 0x03:
                out.append(.interrupt)
                index += 1
            case UInt8(ascii: "$"):
                guard let hash = buffer[(index + 1)...].firstIndex(of: UInt8(ascii: "#")), hash + 2 < buffer.count
                else {
                    break scan  // incomplete packet: wait for more bytes
                }
                let payload = Array(buffer[(index + 1)..<hash])
                let sent = GDBPacket.unhex(String(decoding: buffer[(hash + 1)...(hash + 2)], as: UTF8.self))
                out.append(.packet(payload, checksumOK: sent?.first == GDBPacket.checksum(payload)))
                index = hash + 3
            default:
                index += 1
            }
        }
        buffer.removeFirst(index)
        return out
    }
}
