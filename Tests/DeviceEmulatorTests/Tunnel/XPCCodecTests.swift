import Foundation
import Testing

@testable import DeviceEmulator

/// The RemoteXPC codec against bytes written by pymobiledevice3 11.45.0's own encoder
/// (`xpc_message.create_xpc_wrapper`, pasted here) and the golden objects of IOS17-TUNNEL.md §1.7.
@Suite struct XPCCodecTests {
    /// pymobiledevice3's handshake: `{MessageType: "Handshake", MessagingProtocolVersion: u64 7, UUID,
    /// Properties: {RemoteXPCVersionFlags: u64 0x0100000000000006, SensitivePropertiesVisible: true},
    /// Services: {}}`, message id 1, flags 0x101.
    static let clientHandshake =
        "920bb02901010000f0000000000000000100000000000000423713420500000000f00000e0000000050000004d6573736167"
        + "655479706500009000000a00000048616e647368616b650000004d6573736167696e6750726f746f636f6c56657273696f"
        + "6e00000000004000000700000000000000555549440000000000a000001111111122223333444455555555555550726f70"
        + "657274696573000000f000004c0000000200000052656d6f746558504356657273696f6e466c616773000000004000000600"
        + "00000000000153656e73697469766550726f7065727469657356697369626c650000002000000100000053657276696365"
        + "730000000000f000000400000000000000"
    /// `{a: i64 -2, d: data 010203, f: 1.5, n: null, l: ["x", "yz"]}`, message id 3.
    static let mixed =
        "920bb0290101000074000000000000000300000000000000423713420500000000f00000640000000500000061000000003000"
        + "00feffffffffffffff640000000080000003000000010203006600000000500000000000000000f83f6e00000000100000"
        + "6c00000000e000001c000000020000000090000002000000780000000090000003000000797a0000"

    @Test func decodesTheRealClientsHandshake() throws {
        let message = try XPCCodec.decode(TunnelBytes.bytes(Self.clientHandshake)[...])
        #expect(message.flags == [.alwaysSet, .dataPresent])
        #expect(message.messageID == 1)
        let payload = try #require(message.payload)
        #expect(payload["MessageType"] == .string("Handshake"))
        #expect(payload["MessagingProtocolVersion"] == .uint64(7))
        #expect(payload["UUID"] == .uuid(UUID(uuidString: "11111111-2222-3333-4444-555555555555")!))
        #expect(payload["Properties"]?["RemoteXPCVersionFlags"] == .uint64(0x0100_0000_0000_0006))
        #expect(payload["Properties"]?["SensitivePropertiesVisible"] == .bool(true))
        #expect(payload["Services"] == .dictionary([]))
        // And the same bytes back.
        #expect(XPCCodec.encode(message) == TunnelBytes.bytes(Self.clientHandshake))
    }

    @Test func roundTripsEveryKindAsPymobiledevice3WritesIt() throws {
        let expected = XPCMessage(
            flags: [.alwaysSet, .dataPresent], messageID: 3,
            payload: .dictionary([
                ("a", .int64(-2)), ("d", .data([1, 2, 3])), ("f", .double(1.5)), ("n", .null),
                ("l", .array([.string("x"), .string("yz")])),
            ]))
        #expect(try XPCCodec.decode(TunnelBytes.bytes(Self.mixed)[...]) == expected)
        #expect(XPCCodec.encode(expected) == TunnelBytes.bytes(Self.mixed))
    }

    @Test(arguments: [
        (XPCObject.string("ab"), "00900000 03000000 61620000"),
        (.bool(true), "00200000 01000000"),
        (.uint64(1), "00400000 0100000000000000"),
        (.int64(1), "00300000 0100000000000000"),
        (.dictionary([("k", .bool(true))]), "00f00000 10000000 01000000 6b000000 00200000 01000000"),
        (.array([.string("a")]), "00e00000 10000000 01000000 00900000 02000000 61000000"),
    ])
    func encodesTheGoldenObjects(object: XPCObject, hex: String) {
        var bytes: [UInt8] = []
        XPCCodec.encode(object, into: &bytes)
        #expect(TunnelBytes.hex(.init(bytes: bytes)) == hex.replacingOccurrences(of: " ", with: ""))
    }

    @Test func refusesTruncatedAndHostileInputWithoutTrapping() {
        let whole = TunnelBytes.bytes(Self.mixed)
        for cut in stride(from: 24, to: whole.count, by: 7) {
            #expect(throws: XPCCodec.DecodingError.self) { try XPCCodec.decode(whole[..<cut]) }
        }
        var badMagic = whole
        badMagic[0] = 0
        #expect(throws: XPCCodec.DecodingError.badMagic(0x29B0_0B00)) { try XPCCodec.decode(badMagic[...]) }
        // A dictionary claiming four billion entries.
        #expect(throws: XPCCodec.DecodingError.truncated) {
            try XPCCodec.decode(Self.message(payload: [0x00, 0xF0, 0, 0, 8, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF])[...])
        }
        // Arrays nested deeper than any message.
        var deep: [UInt8] = []
        XPCCodec.encode((0..<100).reduce(XPCObject.null) { inner, _ in .array([inner]) }, into: &deep)
        #expect(throws: XPCCodec.DecodingError.tooDeep) { try XPCCodec.decode(Self.message(payload: deep)[...]) }
    }

    /// A wrapper around raw object bytes (payload header included), its size field right.
    static func message(payload object: [UInt8]) -> [UInt8] {
        let body: [UInt8] = [0x42, 0x37, 0x13, 0x42, 5, 0, 0, 0] + object
        let size = UInt64(body.count)
        return [0x92, 0x0B, 0xB0, 0x29, 1, 1, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) }
            + [UInt8](repeating: 0, count: 8) + body
    }

    @Test func measuresAMessageFromItsHeader() throws {
        let whole = TunnelBytes.bytes(Self.clientHandshake)
        #expect(try XPCCodec.messageLength(whole[..<23]) == nil)
        #expect(try XPCCodec.messageLength(whole[..<24]) == whole.count)
    }
}
