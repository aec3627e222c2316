/// One TCP segment (RFC 9293 §3.1) as the tunnel's TCP server reads and writes it. Only the options a
/// server needs are kept: MSS and window scale. SACK, timestamps, ECN and TFO are ignored, which makes
/// a client switch them off (none is echoed in the SYN-ACK).
struct TCPSegment: Equatable {
    var sourcePort: UInt16
    var destinationPort: UInt16
    var sequence: UInt32
    var acknowledgment: UInt32
    var flags: Flags
    var window: UInt16
    /// MSS option (kind 2): SYN segments only.
    var maximumSegmentSize: UInt16?
    /// Window scale option (kind 3, RFC 7323): SYN segments only.
    var windowScale: UInt8?
    var payload: [UInt8] = []

    static let minimumHeaderLength = 20

    struct Flags: OptionSet, Hashable {
        let rawValue: UInt8
        static let fin = Flags(rawValue: 0x01)
        static let syn = Flags(rawValue: 0x02)
        static let rst = Flags(rawValue: 0x04)
        static let psh = Flags(rawValue: 0x08)
        static let ack = Flags(rawValue: 0x10)
    }

    /// Sequence space the segment occupies: its data, plus one for SYN and one for FIN.
    var sequenceLength: UInt32 {
        UInt32(payload.count) + (flags.contains(.syn) ? 1 : 0) + (flags.contains(.fin) ? 1 : 0)
    }

    init(
        sourcePort: UInt16, destinationPort: UInt16, sequence: UInt32, acknowledgment: UInt32, flags: Flags,
        window: UInt16, maximumSegmentSize: UInt16? = nil, windowScale: UInt8? = nil, payload: [UInt8] = []
    ) {
        self.sourcePort = sourcePort
        self.destinationPort = destinationPort
        self.sequence = sequence
        self.acknowledgment = acknowledgment
        self.flags = flags
        self.window = window
        self.maximumSegmentSize = maximumSegmentSize
        self.windowScale = windowScale
        self.payload = payload
    }

    /// Parses a TCP header, its options and its data; nil when the data offset is impossible.
    init?(bytes: [UInt8]) {
        guard bytes.count >= Self.minimumHeaderLength else { return nil }
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]) }
        func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) << 16 | UInt32(u16(at + 2)) }
        let headerLength = Int(bytes[12] >> 4) * 4
        guard headerLength >= Self.minimumHeaderLength, headerLength <= bytes.count else { return nil }
        sourcePort = u16(0)
        destinationPort = u16(2)
        sequence = u32(4)
        acknowledgment = u32(8)
        // The low 6 bits of byte 13 are the classic flags; ECE/CWR/AE are ignored (no ECN).
        flags = Flags(rawValue: bytes[13] & 0x1F)
        window = u16(14)
        var index = Self.minimumHeaderLength
        while index < headerLength {
            let kind = bytes[index]
            if kind == 0 { break }  // end of options
            if kind == 1 {  // no-op
                index += 1
                continue
            }
            guard index + 1 < headerLength else { return nil }
            let length = Int(bytes[index + 1])
            guard length >= 2, index + length <= headerLength else { return nil }
            if kind == 2, length == 4 { maximumSegmentSize = u16(index + 2) }
            if kind == 3, length == 3 { windowScale = bytes[index + 2] }
            index += length
        }
        payload = Array(bytes[headerLength...])
    }

    /// The header, options and data, with a zero checksum (``TunnelPacket`` fills it in).
    func bytes() -> [UInt8] {
        var options: [UInt8] = []
        if let maximumSegmentSize {
            options += [2, 4, UInt8(maximumSegmentSize >> 8), UInt8(maximumSegmentSize & 0xFF)]
        }
        if let windowScale { options += [1, 3, 3, windowScale] }  // NOP-aligned, as every stack sends it
        while options.count % 4 != 0 { options.append(0) }
        let headerLength = Self.minimumHeaderLength + options.count
        var out: [UInt8] = []
        out.reserveCapacity(headerLength + payload.count)
        func put16(_ value: UInt16) { out += [UInt8(value >> 8), UInt8(value & 0xFF)] }
        func put32(_ value: UInt32) {
            put16(UInt16(value >> 16))
            put16(UInt16(value & 0xFFFF))
        }
        put16(sourcePort)
        put16(destinationPort)
        put32(sequence)
        put32(acknowledgment)
        out.append(UInt8(headerLength / 4) << 4)
        out.append(flags.rawValue)
        put16(window)
        put16(0)  // checksum
        put16(0)  // urgent pointer
        out += options
        out += payload
        return out
    }
}

/// Sequence-number arithmetic modulo 2^32 (RFC 9293 §3.4): `a` is before `b` when the signed distance
/// from `a` to `b` is positive.
enum SequenceSpace {
    /// `b - a` as a signed distance (negative when `b` is before `a`).
    static func distance(from a: UInt32, to b: UInt32) -> Int32 { Int32(bitPattern: b &- a) }
}
