import NIOCore

/// One IPv6 packet carrying TCP, as it crosses the CoreDeviceProxy tunnel (no extension headers: the
/// host's TCP traffic has none, and anything else — MLDv2 reports, hop-by-hop options — is dropped).
struct TunnelPacket: Equatable {
    var source: IPv6Address
    var destination: IPv6Address
    var segment: TCPSegment

    static let ipv6HeaderLength = 40
    static let tcpProtocol: UInt8 = 6

    /// Why a packet from the host was not taken; counted by the stack, never fatal.
    enum Drop: Error, Hashable {
        case notIPv6
        case notTCP(nextHeader: UInt8)
        case truncated
        case badChecksum
    }

    /// Parses one whole packet (the framer has cut it at the IPv6 payload length).
    static func parse(_ packet: ByteBuffer) throws(Drop) -> TunnelPacket {
        let view = packet.readableBytesView
        guard view.count >= ipv6HeaderLength + TCPSegment.minimumHeaderLength else { throw .truncated }
        let base = view.startIndex
        guard view[base] >> 4 == 6 else { throw .notIPv6 }
        guard view[base + 6] == tcpProtocol else { throw .notTCP(nextHeader: view[base + 6]) }
        let source = IPv6Address(bytes: Array(view[(base + 8)..<(base + 24)]))
        let destination = IPv6Address(bytes: Array(view[(base + 24)..<(base + 40)]))
        let tcp = Array(view[(base + ipv6HeaderLength)...])
        guard checksum(source: source, destination: destination, tcp: tcp) == 0 else { throw .badChecksum }
        guard let segment = TCPSegment(bytes: tcp) else { throw .truncated }
        return TunnelPacket(source: source, destination: destination, segment: segment)
    }

    /// The packet's bytes, with the TCP checksum computed over the IPv6 pseudo-header.
    func serialized(allocator: ByteBufferAllocator = ByteBufferAllocator()) -> ByteBuffer {
        var tcp = segment.bytes()
        let sum = Self.checksum(source: source, destination: destination, tcp: tcp)
        tcp[16] = UInt8(sum >> 8)
        tcp[17] = UInt8(sum & 0xFF)
        var buffer = allocator.buffer(capacity: Self.ipv6HeaderLength + tcp.count)
        buffer.writeInteger(UInt32(6) << 28)  // version 6, traffic class 0, flow label 0
        buffer.writeInteger(UInt16(tcp.count))
        buffer.writeInteger(Self.tcpProtocol)
        buffer.writeInteger(UInt8(64))  // hop limit
        buffer.writeBytes(source.bytes)
        buffer.writeBytes(destination.bytes)
        buffer.writeBytes(tcp)
        return buffer
    }

    /// The Internet checksum (RFC 1071) of the IPv6 pseudo-header (RFC 8200 §8.1) and the TCP bytes:
    /// 0 for a received segment whose checksum is right; the value to store for an outgoing one (whose
    /// checksum field is 0).
    static func checksum(source: IPv6Address, destination: IPv6Address, tcp: [UInt8]) -> UInt16 {
        var sum: UInt32 = 0
        func add(_ bytes: [UInt8]) {
            var index = 0
            while index + 1 < bytes.count {
                sum &+= UInt32(bytes[index]) << 8 | UInt32(bytes[index + 1])
                index += 2
            }
            if index < bytes.count { sum &+= UInt32(bytes[index]) << 8 }
            sum = (sum & 0xFFFF) &+ (sum >> 16)
        }
        add(source.bytes)
        add(destination.bytes)
        let length = UInt32(tcp.count)
        add([UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
        add([0, 0, 0, tcpProtocol])
        add(tcp)
        while sum >> 16 != 0 { sum = (sum & 0xFFFF) + (sum >> 16) }
        return ~UInt16(sum)
    }
}

/// A 128-bit IPv6 address in network byte order, printed in the RFC 5952 short form.
struct IPv6Address: Hashable, CustomStringConvertible {
    let bytes: [UInt8]

    init(bytes: [UInt8]) {
        precondition(bytes.count == 16, "an IPv6 address is 16 bytes")
        self.bytes = bytes
    }

    /// The address `prefix` (8 bytes, a /64) + `interface` (the low 64 bits).
    init(prefix: [UInt8], interface: UInt64) {
        precondition(prefix.count == 8, "a /64 prefix is 8 bytes")
        self.init(bytes: prefix + (0..<8).map { UInt8(truncatingIfNeeded: interface >> (56 - 8 * $0)) })
    }

    var description: String {
        let groups = stride(from: 0, to: 16, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
        // RFC 5952: the longest run (≥ 2) of zero groups becomes "::", the first one on a tie.
        var best = (start: -1, length: 0)
        var index = 0
        while index < groups.count {
            guard groups[index] == 0 else {
                index += 1
                continue
            }
            var end = index
            while end < groups.count, groups[end] == 0 { end += 1 }
            if end - index > best.length, end - index >= 2 { best = (index, end - index) }
            index = end
        }
        let hex = groups.map { String($0, radix: 16) }
        guard best.start >= 0 else { return hex.joined(separator: ":") }
        let head = hex[..<best.start].joined(separator: ":")
        let tail = hex[(best.start + best.length)...].joined(separator: ":")
        return head + "::" + tail
    }
}
