import NIOCore
import NIOEmbedded
import NIOTestUtils
import Testing

@testable import DeviceEmulator

/// The AFC packet decoder (40-byte little-endian header, header data, payload), without sockets: through
/// `ByteToMessageDecoderVerifier` and on an `EmbeddedChannel`.
@Suite struct AFCPacketDecoderTests {
    static let packets = [
        AFCPacket(packetNumber: 1, operation: AFCOperation.getDeviceInfo.rawValue, headerData: [], payload: []),
        AFCPacket(
            packetNumber: 2, operation: AFCOperation.fileOpen.rawValue,
            headerData: [3, 0, 0, 0, 0, 0, 0, 0] + Array("/Downloads/x\0".utf8), payload: []),
        AFCPacket(
            packetNumber: 3, operation: AFCOperation.fileWrite.rawValue, headerData: [1, 0, 0, 0, 0, 0, 0, 0],
            payload: Array(repeating: 0xAB, count: 300)),
    ]

    @Test func verifierAcceptsSeveralPacketsHoweverTheyAreSplit() throws {
        var pairs = Self.packets.map { ($0.encoded(), [$0]) }
        var all = ByteBuffer()
        for packet in Self.packets { all.writeImmutableBuffer(packet.encoded()) }
        pairs.append((all, Self.packets))
        try ByteToMessageDecoderVerifier.verifyDecoder(inputOutputPairs: pairs) { AFCPacketDecoder() }
    }

    /// A 40-byte header with these lengths.
    static func header(entire: UInt64, this: UInt64) -> ByteBuffer {
        var buffer = ByteBuffer(bytes: AFCPacket.magic)
        buffer.writeInteger(entire, endianness: .little)
        buffer.writeInteger(this, endianness: .little)
        buffer.writeInteger(UInt64(1), endianness: .little)
        buffer.writeInteger(AFCOperation.status.rawValue, endianness: .little)
        return buffer
    }

    @Test(arguments: [
        (UInt64(40), UInt64(39)),  // this_length shorter than the header
        (UInt64(40), UInt64(41)),  // entire_length shorter than this_length
        (UInt64(64 * 1024 * 1024 + 1), UInt64(40)),  // above the maximum
    ])
    func badLengthsThrow(entire: UInt64, this: UInt64) throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(AFCPacketDecoder()))
        let error = #expect(throws: AFCFramingError.self) {
            try channel.writeInbound(Self.header(entire: entire, this: this))
        }
        guard case .badLengths(let badEntire, let badThis) = error else { return }
        #expect(badEntire == entire && badThis == this)
        _ = try? channel.finish()
    }
}
