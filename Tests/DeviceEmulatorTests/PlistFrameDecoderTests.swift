import Foundation
import NIOCore
import NIOEmbedded
import NIOTestUtils
import Testing

@testable import DeviceEmulator

/// The lockdown-style frame decoder (4-byte big-endian length, then the body), without sockets: on an
/// `EmbeddedChannel` and through NIO's `ByteToMessageDecoderVerifier` (drip-fed, one frame per read, many
/// frames per read).
@Suite struct PlistFrameDecoderTests {
    /// Bodies as lockdown and installation_proxy send them, an empty one, and one longer than 255 bytes
    /// (so the length's second byte counts).
    static let bodies: [ByteBuffer] = [
        body(PropertyList.xml(["Request": "QueryType", "Label": "launchbench"])),
        body(Data()),
        body(
            PropertyList.xml([
                "Request": "GetValue", "Key": "ProductVersion", "Padding": String(repeating: "x", count: 300),
            ])),
        body(Data([0x00, 0x01, 0x02, 0xFF])),
    ]

    static func body(_ data: Data) -> ByteBuffer { ByteBuffer(bytes: data) }

    /// `body` framed by hand (not with the module's `plistFrame`), so the test does not trust the writer.
    static func frame(_ body: ByteBuffer) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(body.readableBytes), endianness: .big)
        buffer.writeImmutableBuffer(body)
        return buffer
    }

    static func stream(_ bodies: [ByteBuffer]) -> ByteBuffer {
        var buffer = ByteBuffer()
        for body in bodies { buffer.writeImmutableBuffer(frame(body)) }
        return buffer
    }

    /// Everything the decoder passed on, in order.
    static func decoded(_ channel: EmbeddedChannel) throws -> [ByteBuffer] {
        var out: [ByteBuffer] = []
        while let body = try channel.readInbound(as: ByteBuffer.self) { out.append(body) }
        return out
    }

    @Test func verifierAcceptsSeveralFramesHoweverTheyAreSplit() throws {
        var pairs = Self.bodies.map { (Self.frame($0), [$0]) }
        pairs.append((Self.stream(Self.bodies), Self.bodies))  // several frames in one read
        try ByteToMessageDecoderVerifier.verifyDecoder(inputOutputPairs: pairs) { PlistFrameDecoder() }
    }

    @Test func aStreamSplitAtEveryByteDecodesTheSameFrames() throws {
        let stream = Self.stream(Self.bodies)
        for cut in 0...stream.readableBytes {
            let channel = EmbeddedChannel(handler: ByteToMessageHandler(PlistFrameDecoder()))
            try channel.writeInbound(stream.getSlice(at: 0, length: cut)!)
            let early = try Self.decoded(channel)
            try channel.writeInbound(stream.getSlice(at: cut, length: stream.readableBytes - cut)!)
            let all = early + (try Self.decoded(channel))
            #expect(all == Self.bodies, "split at byte \(cut)")
            // A frame is never passed on before its last byte arrived.
            #expect(Self.bodies.prefix(early.count).elementsEqual(early), "split at byte \(cut)")
            #expect(try channel.finish().isClean, "split at byte \(cut)")
        }
    }

    @Test func aFrameOfExactlyTheMaximumPasses() throws {
        let body = ByteBuffer(repeating: 0x41, count: 64)
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(PlistFrameDecoder(maximumLength: 64)))
        try channel.writeInbound(Self.frame(body))
        #expect(try Self.decoded(channel) == [body])
        #expect(try channel.finish().isClean)
    }

    @Test(arguments: [(64, UInt32(65)), (16 * 1024 * 1024, UInt32.max)])
    func aLengthAboveTheMaximumThrowsAsSoonAsItIsRead(maximum: Int, announced: UInt32) throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(PlistFrameDecoder(maximumLength: maximum)))
        var header = ByteBuffer()
        header.writeInteger(announced, endianness: .big)
        // Three of the four length bytes: nothing to judge yet.
        try channel.writeInbound(header.getSlice(at: 0, length: 3)!)
        // The fourth: the decoder throws without waiting for the body.
        let error = #expect(throws: PlistFrameError.self) {
            try channel.writeInbound(header.getSlice(at: 3, length: 1)!)
        }
        guard case .tooLong(let length) = error else { return }
        #expect(length == Int(announced))
        #expect(try Self.decoded(channel).isEmpty)
        _ = try? channel.finish()
    }
}
