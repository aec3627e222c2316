import EmulatorTestSupport
import Foundation
import LaunchBench
import NIOCore
import NIOEmbedded
import TestSupport
import Testing

@testable import DeviceEmulator

/// The usbmuxd connection handler on an `EmbeddedChannel`: requests in, replies out, and the switch to a
/// raw byte pipe after `Connect`. The lab only supplies the devices; its socket is not used.
@Suite(.tags(.emulator), .timeLimit(.minutes(5))) struct USBMuxConnectionHandlerTests {
    static let specs = EmulatedDeviceSpec.lab(count: 2, osVersion: "14.8")

    /// A usbmuxd client connection on an `EmbeddedChannel` whose only handler is `USBMuxConnectionHandler`.
    /// Use it from one thread (no `await` between creating and finishing it).
    final class MuxChannel {
        let channel: EmbeddedChannel

        init(lab: EmulatedLab) throws {
            channel = EmbeddedChannel(handler: USBMuxConnectionHandler(lab: lab))
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 27015)).wait()
        }

        /// One usbmuxd plist request, framed by hand: 16-byte little-endian header (length, version 1,
        /// message 8, tag), then the XML plist.
        static func request(_ plist: [String: Any], tag: UInt32) -> ByteBuffer {
            let body = try! PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
            var buffer = ByteBuffer()
            buffer.writeInteger(UInt32(16 + body.count), endianness: .little)
            buffer.writeInteger(UInt32(1), endianness: .little)
            buffer.writeInteger(UInt32(8), endianness: .little)
            buffer.writeInteger(tag, endianness: .little)
            buffer.writeBytes(body)
            return buffer
        }

        /// A `Connect` request; the port goes on the wire as libusbmuxd sends it (`htons(port)`).
        static func connect(deviceID: Int, port: Int, tag: UInt32) -> ByteBuffer {
            request(
                ["MessageType": "Connect", "DeviceID": deviceID, "PortNumber": Int(UInt16(port).bigEndian)], tag: tag)
        }

        func send(_ buffer: ByteBuffer) throws { try channel.writeInbound(buffer) }

        /// Every write since the last call, in order.
        func writes() throws -> [ByteBuffer] {
            var out: [ByteBuffer] = []
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) { out.append(buffer) }
            return out
        }

        /// Every write since the last call, each checked to be ONE whole usbmuxd plist frame.
        func replies() throws -> [Reply] {
            try writes().map { buffer in
                var buffer = buffer
                try #require(buffer.readableBytes >= 16, "a whole header")
                let length = buffer.readInteger(endianness: .little, as: UInt32.self)!
                #expect(Int(length) == buffer.readableBytes + 4, "one frame per write")
                let version = buffer.readInteger(endianness: .little, as: UInt32.self)
                let message = buffer.readInteger(endianness: .little, as: UInt32.self)
                #expect(version == 1 && message == 8)
                let tag = buffer.readInteger(endianness: .little, as: UInt32.self)!
                let plist = try PropertyListSerialization.propertyList(
                    from: Data(buffer.readableBytesView), format: nil)
                return Reply(tag: tag, plist: try #require(plist as? [String: Any]))
            }
        }

        func finish() { _ = try? channel.finish(acceptAlreadyClosed: true) }
    }

    struct Reply {
        var tag: UInt32
        var plist: [String: Any]

        var messageType: String? { plist["MessageType"] as? String }
        var number: Int? { RawUSBMuxClient.integer(plist["Number"]) }
        var serialNumber: String? { (plist["Properties"] as? [String: Any])?["SerialNumber"] as? String }
    }

    /// A lockdown frame (4-byte big-endian length, XML plist), framed by hand.
    static func lockdownFrame(_ plist: [String: Any]) -> ByteBuffer {
        let body = try! PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(body.count), endianness: .big)
        buffer.writeBytes(body)
        return buffer
    }

    /// Every write, each checked to be ONE whole lockdown frame, as plists.
    static func lockdownReplies(_ writes: [ByteBuffer]) throws -> [[String: Any]] {
        try writes.map { buffer in
            var buffer = buffer
            try #require(buffer.readableBytes >= 4, "a whole length")
            let length = buffer.readInteger(endianness: .big, as: UInt32.self)!
            #expect(Int(length) == buffer.readableBytes, "one frame per write")
            let plist = try PropertyListSerialization.propertyList(from: Data(buffer.readableBytesView), format: nil)
            return try #require(plist as? [String: Any])
        }
    }

    static func concatenated(_ buffers: ByteBuffer...) -> ByteBuffer {
        var all = ByteBuffer()
        for buffer in buffers { all.writeImmutableBuffer(buffer) }
        return all
    }

    // MARK: - Control requests

    @Test func listDevicesAnswersOnceTheWholeRequestIsThereAndEchoesTheTag() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            try lab.detach(udid: Self.specs[1].udid)
            let mux = try MuxChannel(lab: lab)
            defer { mux.finish() }
            let request = MuxChannel.request(["MessageType": "ListDevices"], tag: 7)
            try mux.send(request.getSlice(at: 0, length: 20)!)  // header and part of the plist
            #expect(try mux.writes().isEmpty)
            try mux.send(request.getSlice(at: 20, length: request.readableBytes - 20)!)
            let replies = try mux.replies()
            try #require(replies.count == 1)
            #expect(replies[0].tag == 7)
            let list = try #require(replies[0].plist["DeviceList"] as? [[String: Any]])
            #expect(
                list.map { ($0["Properties"] as? [String: Any])?["SerialNumber"] as? String } == [Self.specs[0].udid])
            #expect(mux.channel.isActive)
        }
    }

    @Test func twoRequestsInOneReadGetTwoRepliesInOrder() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            let mux = try MuxChannel(lab: lab)
            defer { mux.finish() }
            try mux.send(
                Self.concatenated(
                    MuxChannel.request(["MessageType": "ReadBUID"], tag: 1),
                    MuxChannel.request(["MessageType": "NoSuchRequest"], tag: 2)))
            let replies = try mux.replies()
            try #require(replies.count == 2)
            #expect(replies[0].tag == 1 && replies[0].plist["BUID"] as? String == lab.systemBUID)
            #expect(replies[1].tag == 2 && replies[1].messageType == "Result" && replies[1].number == 1)
        }
    }

    @Test func listenAnswersResultThenAttachedAndThenOnlyEvents() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            let mux = try MuxChannel(lab: lab)
            defer { mux.finish() }
            try mux.send(MuxChannel.request(["MessageType": "Listen"], tag: 3))
            let replies = try mux.replies()
            try #require(replies.count == 3)
            #expect(replies[0].tag == 3 && replies[0].messageType == "Result" && replies[0].number == 0)
            #expect(replies[1...].map(\.tag) == [0, 0])
            #expect(replies[1...].map(\.messageType) == ["Attached", "Attached"])
            #expect(replies[1...].map(\.serialNumber) == Self.specs.map(\.udid))

            // The connection is now registered for hot-plug events.
            let added = EmulatedDeviceSpec.numbered(900, productType: "iPhone12,1", osVersion: "14.8")
            try lab.add(added)
            let event = try mux.replies()
            #expect(event.map(\.messageType) == ["Attached"] && event.first?.serialNumber == added.udid)

            // A Listen connection takes no more requests.
            try mux.send(MuxChannel.request(["MessageType": "ListDevices"], tag: 4))
            let refused = try mux.replies()
            #expect(refused.count == 1 && refused.first?.tag == 4 && refused.first?.number == 1)
        }
    }

    @Test func aRequestThatIsNotAPlistMessageIsABadCommand() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            let mux = try MuxChannel(lab: lab)
            defer { mux.finish() }
            var binary = ByteBuffer()  // the old binary protocol (version 0, message 3 = Listen)
            for field: UInt32 in [16, 0, 3, 9] { binary.writeInteger(field, endianness: .little) }
            try mux.send(binary)
            let replies = try mux.replies()
            #expect(replies.count == 1 && replies.first?.tag == 9 && replies.first?.number == 1)
            #expect(mux.channel.isActive)
        }
    }

    @Test(arguments: [0, 15, 1024 * 1024 + 1] as [UInt32])
    func aLengthOutsideTheLimitsClosesTheConnectionWithoutAnswer(length: UInt32) async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            let mux = try MuxChannel(lab: lab)
            defer { mux.finish() }
            var header = ByteBuffer()
            for field: UInt32 in [length, 1, 8, 1] { header.writeInteger(field, endianness: .little) }
            try mux.send(header)
            #expect(try mux.writes().isEmpty)
            #expect(!mux.channel.isActive)
        }
    }

    // MARK: - Connect and the raw pipe

    @Test func connectRefusals() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            let first = try #require(lab.device(udid: Self.specs[0].udid))
            let second = try #require(lab.device(udid: Self.specs[1].udid))
            try lab.detach(udid: second.udid)
            let cases: [(deviceID: Int, port: Int, result: Int)] = [
                (99, EmulatedDevice.lockdownPort, 2),  // no such device
                (second.deviceID, EmulatedDevice.lockdownPort, 2),  // detached
                (first.deviceID, 49152, 3),  // no service started on that port
            ]
            for (index, check) in cases.enumerated() {
                let mux = try MuxChannel(lab: lab)
                defer { mux.finish() }
                try mux.send(MuxChannel.connect(deviceID: check.deviceID, port: check.port, tag: UInt32(index)))
                let replies = try mux.replies()
                #expect(replies.count == 1 && replies.first?.number == check.result, "\(check)")
                // Still a control connection: the next request is answered as usbmuxd.
                try mux.send(MuxChannel.request(["MessageType": "ReadBUID"], tag: 50))
                #expect(try mux.replies().first?.plist["BUID"] as? String == lab.systemBUID, "\(check)")
            }
        }
    }

    /// The lockdown request sent right behind `Connect` — all of it, part of it, or none of it in the same
    /// read — reaches lockdown once, whole: no byte is lost or taken for usbmuxd.
    @Test func connectToLockdownPipesTheBytesThatCameWithTheRequest() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            let device = try #require(lab.device(udid: Self.specs[0].udid))
            let connect = MuxChannel.connect(deviceID: device.deviceID, port: EmulatedDevice.lockdownPort, tag: 5)
            let query = Self.lockdownFrame(["Request": "QueryType", "Label": "test"])
            for cut in 0...query.readableBytes {
                let mux = try MuxChannel(lab: lab)
                defer { mux.finish() }
                try mux.send(Self.concatenated(connect, query.getSlice(at: 0, length: cut)!))
                var writes = try mux.writes()
                if cut < query.readableBytes {
                    try mux.send(query.getSlice(at: cut, length: query.readableBytes - cut)!)
                    writes += try mux.writes()
                }
                try #require(writes.count == 2, "split at byte \(cut): \(writes.count) writes")
                let result = writes[0]
                #expect(result.getInteger(at: 12, endianness: .little, as: UInt32.self) == 5)  // the tag
                #expect(String(buffer: result).contains("<integer>0</integer>"), "Result 0, split at \(cut)")
                let reply = try Self.lockdownReplies([writes[1]])
                #expect(reply.first?["Request"] as? String == "QueryType", "split at byte \(cut)")
                #expect(reply.first?["Type"] as? String == "com.apple.mobile.lockdown", "split at byte \(cut)")
            }
        }
    }

    @Test func afterConnectUSBMuxFramesAreJustBytesForTheService() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            let device = try #require(lab.device(udid: Self.specs[0].udid))
            let mux = try MuxChannel(lab: lab)
            defer { mux.finish() }
            try mux.send(MuxChannel.connect(deviceID: device.deviceID, port: EmulatedDevice.lockdownPort, tag: 1))
            #expect(try mux.replies().first?.number == 0)
            #expect(device.openConnections.count == 1)

            try mux.send(Self.lockdownFrame(["Request": "GetValue", "Key": "ProductVersion"]))
            #expect(try Self.lockdownReplies(mux.writes()).first?["Value"] as? String == "14.8")

            // A usbmuxd request now reads as a lockdown frame of 0x10000000+ bytes: the frame decoder
            // throws and lockdown drops the client.
            let request = MuxChannel.request(["MessageType": "ListDevices"], tag: 2)
            try #require(request.getInteger(at: 0, endianness: .big, as: UInt32.self)! > 16 * 1024 * 1024)
            try mux.send(request)
            #expect(try mux.writes().isEmpty)
            #expect(!mux.channel.isActive)
            mux.channel.embeddedEventLoop.run()  // EmbeddedChannel completes closeFuture on the next loop turn
            #expect(device.openConnections.isEmpty)
        }
    }

    @Test func connectToAServicePortHandsTheBytesThatCameWithTheRequestToTheService() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            let device = try #require(lab.device(udid: Self.specs[0].udid))
            let service = DebugServerService()
            let port = device.allocatePort(for: DebugServerService.plainName, service: service)
            let mux = try MuxChannel(lab: lab)
            defer { mux.finish() }
            // `?` (why did the process stop) in the same read as the Connect request.
            let connect = MuxChannel.connect(deviceID: device.deviceID, port: port, tag: 8)
            try mux.send(Self.concatenated(connect, ByteBuffer(string: "$?#3f")))
            let writes = try mux.writes()
            try #require(writes.count == 2)
            #expect(writes[0].getInteger(at: 12, endianness: .little, as: UInt32.self) == 8)
            #expect(String(buffer: writes[1]) == "+$W00#b7")

            // The port is one-shot.
            let again = try MuxChannel(lab: lab)
            defer { again.finish() }
            try again.send(MuxChannel.connect(deviceID: device.deviceID, port: port, tag: 9))
            #expect(try again.replies().map(\.number) == [3])
        }
    }
}
