import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import DeviceEmulator

/// The DTX codec against bytes the real pymobiledevice3 sent (Fixtures/dvt/) and documented device replies.
@Suite struct DTXMessageTests {
    static func golden(_ name: String) throws -> [UInt8] {
        let text = try String(contentsOf: FixturePaths.root.appendingPathComponent("dvt/\(name)"), encoding: .utf8)
        let hex = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        return stride(from: 0, to: hex.count, by: 2).map {
            UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)!
        }
    }

    /// Feeds `bytes` through the decoder in pieces of `step` bytes; returns the messages it produced.
    static func decode(_ bytes: [UInt8], step: Int = 7) throws -> [DTXMessage] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(DTXMessageDecoder()))
        var offset = 0
        while offset < bytes.count {
            var buffer = channel.allocator.buffer(capacity: step)
            buffer.writeBytes(bytes[offset..<min(offset + step, bytes.count)])
            try channel.writeInbound(buffer)
            offset += step
        }
        var messages: [DTXMessage] = []
        while let message = try channel.readInbound(as: DTXMessage.self) { messages.append(message) }
        _ = try channel.finish()
        return messages
    }

    @Test func theClientsCapabilitiesDecodeToTheirSelectorAndDictionary() throws {
        let messages = try Self.decode(Self.golden("golden_client_msg1.hex"))
        let message = try #require(messages.first)
        #expect(messages.count == 1)
        #expect(message.kind == .dispatch)
        #expect(message.identifier == 1 && message.conversationIndex == 0 && message.channel == 0)
        #expect(!message.expectsReply)
        #expect(try KeyedArchive.decode(message.payload) as? String == "_notifyOfPublishedCapabilities:")
        let arguments = try DTXArguments.decode(message.auxiliary)
        let capabilities = try #require(arguments.first?.value as? NSDictionary)
        #expect(arguments.count == 1)
        #expect((capabilities["com.apple.private.DTXConnection"] as? NSNumber)?.intValue == 1)
    }

    @Test func theClientsChannelRequestCarriesAnInt32CodeAndTheServiceName() throws {
        let message = try #require(try Self.decode(Self.golden("golden_client_msg2.hex"), step: 100).first)
        #expect(message.identifier == 2 && message.expectsReply)
        #expect(try KeyedArchive.decode(message.payload) as? String == "_requestChannelWithCode:identifier:")
        let arguments = try DTXArguments.decode(message.auxiliary)
        guard case .int32(1) = arguments.first else {
            Issue.record("the channel code is not the i32 1: \(arguments)")
            return
        }
        #expect(arguments.last?.value as? String == "com.apple.instruments.server.services.deviceinfo")
    }

    /// The OK reply a device sends to the channel request (DVT-KDEBUG.md §1), byte for byte.
    @Test func anOKReplyIsTheDocumentedBytes() {
        let reply = DTXMessage(kind: .ok, identifier: 2, conversationIndex: 1, channel: 0)
        let hex = reply.encoded().readableBytesView.map { String(format: "%02x", $0) }.joined()
        #expect(
            hex == "795b3d1f" + "20000000" + "00000100" + "10000000" + "02000000" + "01000000" + "00000000"
                + "00000000" + "00000000" + "00000000" + "00000000" + "00000000")
    }

    /// A kdebug chunk above 128 KiB goes out as a header-only fragment 0 and body fragments, and comes back whole.
    @Test func aLargeMessageIsFragmentedAndReassembled() throws {
        let payload = (0..<(300 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let message = DTXMessage(kind: .data, identifier: 9, channel: -3, payload: payload)
        let bytes = Array(message.encoded().readableBytesView)
        #expect(bytes.count == 4 * DTXMessage.fragmentHeaderSize + DTXMessage.payloadHeaderSize + payload.count)
        #expect(bytes[10] == 4 && bytes[11] == 0)  // fragment count
        #expect(try Self.decode(bytes, step: 4096) == [message])
    }

    @Test func argumentsRoundTripEveryPrimitiveType() throws {
        let arguments: [DTXArgument] = [
            .int32(-5), .int64(1 << 40), .double(2.5), .string("plain"), .object(["a": 1] as NSDictionary), .null,
        ]
        let decoded = try DTXArguments.decode(DTXArguments.encode(arguments))
        #expect(decoded.count == 6)
        #expect(decoded[0].value as? Int == -5 && decoded[1].value as? Int == 1 << 40)
        #expect(decoded[2].value as? Double == 2.5 && decoded[3].value as? String == "plain")
        #expect(((decoded[4].value as? NSDictionary)?["a"] as? NSNumber)?.intValue == 1)
        #expect(decoded[5].value == nil)
    }

    @Test func bytesThatAreNotDTXAreRefused() {
        #expect(throws: DTXProtocolError.badMagic(0x696C_7062)) {
            try Self.decode(Array("bplist00 and then some more bytes than a header".utf8))
        }
    }
}
