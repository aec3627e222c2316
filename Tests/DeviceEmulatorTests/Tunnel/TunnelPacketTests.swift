import NIOCore
import Testing

@testable import DeviceEmulator

/// The IPv6 + TCP bytes against packets built by an independent implementation (a Python stand-in written for
/// the tunnel research, `ip6_tcp`, kept outside this repository): pymobiledevice3 does not check checksums,
/// so only this test would notice a wrong one.
@Suite struct TunnelPacketTests {
    static let device = IPv6Address(prefix: [0xFD, 0x12, 0x34, 0x56, 0x78, 0x9A, 0, 0], interface: 1)
    static let host = IPv6Address(prefix: [0xFD, 0x12, 0x34, 0x56, 0x78, 0x9A, 0, 0], interface: 2)

    /// SYN-ACK 58783 → 50000, seq 1000, ack 2000, window 65535, MSS 1400, NOP + window scale 7.
    static let synAcknowledgment =
        "60000000001c0640fd123456789a00000000000000000001fd123456789a00000000000000000002"
        + "e59fc350000003e8000007d07012ffff7b9200000204057801030307"
    /// PSH|ACK 50000 → 58783, seq 2000, ack 1001, window 512, "hello, tunnel!".
    static let data =
        "6000000000220640fd123456789a00000000000000000002fd123456789a00000000000000000001"
        + "c350e59f000007d0000003e950180200f0a3000068656c6c6f2c2074756e6e656c21"

    @Test func serializesTheSameBytesAsAnIndependentImplementation() {
        let segment = TCPSegment(
            sourcePort: 58783, destinationPort: 50000, sequence: 1000, acknowledgment: 2000, flags: [.syn, .ack],
            window: 65535, maximumSegmentSize: 1400, windowScale: 7)
        let packet = TunnelPacket(source: Self.device, destination: Self.host, segment: segment)
        #expect(TunnelBytes.hex(packet.serialized()) == Self.synAcknowledgment)
    }

    @Test func parsesAPacketWithItsChecksum() throws {
        let packet = try TunnelPacket.parse(TunnelBytes.buffer(Self.data))
        #expect(packet.source == Self.host)
        #expect(packet.destination == Self.device)
        #expect(packet.segment.sourcePort == 50000)
        #expect(packet.segment.sequence == 2000)
        #expect(packet.segment.acknowledgment == 1001)
        #expect(packet.segment.flags == [.psh, .ack])
        #expect(packet.segment.window == 512)
        #expect(packet.segment.payload == Array("hello, tunnel!".utf8))
        #expect(TunnelBytes.hex(packet.serialized()) == Self.data)
    }

    @Test func dropsAPacketWhoseChecksumIsWrong() {
        var bytes = TunnelBytes.bytes(Self.data)
        bytes[bytes.count - 1] ^= 0x01
        #expect(throws: TunnelPacket.Drop.badChecksum) { try TunnelPacket.parse(ByteBuffer(bytes: bytes)) }
    }

    @Test func dropsWhatIsNotTCP() {
        // An MLDv2 report as pymobiledevice3's host stack sends one: next header 0 (hop-by-hop).
        var bytes = TunnelBytes.bytes(Self.data)
        bytes[6] = 0
        #expect(throws: TunnelPacket.Drop.notTCP(nextHeader: 0)) { try TunnelPacket.parse(ByteBuffer(bytes: bytes)) }
    }

    @Test func readsOptionsAfterNOPsAndSkipsUnknownOnes() throws {
        // pmd-pytcp's SYN: MSS, SACK-permitted, window scale 7, timestamps, a TFO cookie request.
        var tcp: [UInt8] = [0xC3, 0x50, 0xE5, 0x9F, 0, 0, 0x07, 0xD0, 0, 0, 0, 0, 0, 0xC2, 0xFF, 0xFF, 0, 0, 0, 0]
        let options: [UInt8] = [2, 4, 0x3E, 0x44, 4, 2, 1, 3, 3, 7, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 34, 2, 1, 1]
        tcp += options
        tcp[12] = UInt8((20 + options.count) / 4) << 4
        let segment = try #require(TCPSegment(bytes: tcp))
        #expect(segment.maximumSegmentSize == 15940)
        #expect(segment.windowScale == 7)
        #expect(segment.flags == [.syn])  // ECE and CWR are not kept: no ECN
    }

    @Test func printsAddressesInTheShortForm() {
        #expect(Self.device.description == "fd12:3456:789a::1")
        #expect(IPv6Address(bytes: [UInt8](repeating: 0, count: 16)).description == "::")
        #expect(
            IPv6Address(bytes: [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1]).description
                == "2001:db8:0:1::1")
    }

    @Test func comparesSequenceNumbersAcrossTheWrap() {
        #expect(SequenceSpace.distance(from: 0xFFFF_FFF0, to: 0x10) == 0x20)
        #expect(SequenceSpace.distance(from: 0x10, to: 0xFFFF_FFF0) == -0x20)
    }
}

/// Hex and byte helpers for the tunnel tests.
enum TunnelBytes {
    static func hex(_ buffer: ByteBuffer) -> String {
        buffer.readableBytesView.map { String(format: "%02x", $0) }.joined()
    }

    static func bytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    static func buffer(_ hex: String) -> ByteBuffer { ByteBuffer(bytes: bytes(hex)) }
}
