import EmulatorTestSupport
import Foundation
import LaunchBench
import NIOCore
import NIOEmbedded
import TestSupport
import Testing

@testable import DeviceEmulator

/// `DebugServerHandler` on an `EmbeddedChannel` with a virtual clock: the emulated process's timers and
/// the ack-grace timer (how long the exit packet waits for the client's `+` before the connection is
/// closed anyway) run only when the test advances the clock.
@Suite(.tags(.emulator), .timeLimit(.minutes(5))) struct DebugServerHandlerTests {
    /// What debugserver gives a client to acknowledge the exit packet, written out here (not read from
    /// `DebugServerHandler.ackGraceSeconds`) so that changing it fails these tests.
    static let grace = TimeAmount.seconds(5)
    static let spec = EmulatedDeviceSpec.numbered(610, productType: "iPhone12,1", osVersion: "14.8")

    /// A debugserver connection on an `EmbeddedChannel` with its own `EmbeddedEventLoop`.
    /// Use it from one thread (no `await` between creating and finishing it).
    final class GDBChannel {
        let loop = EmbeddedEventLoop()
        let channel: EmbeddedChannel

        init(device: EmulatedDevice, lab: EmulatedLab) throws {
            channel = EmbeddedChannel(handler: DebugServerHandler(device: device, lab: lab, labSeed: 0), loop: loop)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        }

        /// Raw client bytes (`+`, `-`, or packets).
        func send(_ text: String) throws { try channel.writeInbound(ByteBuffer(string: text)) }

        /// A client packet with its checksum.
        func send(packet payload: String) throws { try send(String(decoding: GDBPacket.frame(payload), as: UTF8.self)) }

        /// Every write since the last call, in order.
        func writes() throws -> [String] {
            var out: [String] = []
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) { out.append(String(buffer: buffer)) }
            return out
        }

        func advance(by amount: TimeAmount) { loop.advanceTime(by: amount) }

        var isOpen: Bool { channel.isActive }

        func finish() { _ = try? channel.finish(acceptAlreadyClosed: true) }
    }

    static func frame(_ payload: String, noAck: Bool = false) -> String {
        String(decoding: GDBPacket.frame(payload, noAck: noAck), as: UTF8.self)
    }

    /// Runs `body` on one thread with a lab holding `spec` (the sample app installed).
    static func withDevice(_ body: (EmulatedLab, EmulatedDevice, InstalledApp) throws -> Void) async throws {
        try await PrivateLab.with(devices: [spec]) { lab in
            let device = try #require(lab.device(udid: spec.udid))
            let app = try AppBundleLoader.load(FixturePaths.sampleApp)
            device.services.install(app)
            try body(lab, device, app)
        }
    }

    // MARK: - The ack-grace timer

    @Test func theExitPacketWaitsForItsAckForExactlyTheGracePeriod() async throws {
        try await Self.withDevice { lab, device, _ in
            let gdb = try GDBChannel(device: device, lab: lab)
            defer { gdb.finish() }
            try gdb.send(packet: "k")
            #expect(try gdb.writes() == ["+" + Self.frame("X09")])

            gdb.advance(by: Self.grace - .nanoseconds(1))
            #expect(gdb.isOpen, "closed before the grace period ran out")
            #expect(try gdb.writes().isEmpty)

            gdb.advance(by: .nanoseconds(1))
            #expect(!gdb.isOpen, "still open when the grace period ran out")
            #expect(try gdb.writes().isEmpty, "nothing is sent on giving up")
        }
    }

    @Test func aNakResendsTheExitPacketAndDoesNotRestartTheGrace() async throws {
        try await Self.withDevice { lab, device, _ in
            let gdb = try GDBChannel(device: device, lab: lab)
            defer { gdb.finish() }
            try gdb.send(packet: "k")
            let exit = try gdb.writes()
            #expect(exit == ["+" + Self.frame("X09")])

            gdb.advance(by: .seconds(4))
            try gdb.send("-")
            #expect(try gdb.writes() == exit, "a `-` resends the packet in flight, as written the first time")

            gdb.advance(by: Self.grace - .seconds(4) - .nanoseconds(1))
            #expect(gdb.isOpen)
            gdb.advance(by: .nanoseconds(1))
            #expect(!gdb.isOpen, "the grace counts from the first write, not from the resend")
        }
    }

    @Test func theAckClosesAtOnce() async throws {
        try await Self.withDevice { lab, device, _ in
            let gdb = try GDBChannel(device: device, lab: lab)
            defer { gdb.finish() }
            try gdb.send(packet: "k")
            _ = try gdb.writes()

            gdb.advance(by: .seconds(1))
            try gdb.send("+")
            #expect(!gdb.isOpen, "the `+` for the exit packet ends the session")
            #expect(try gdb.writes().isEmpty)
            gdb.advance(by: Self.grace * 2)
            #expect(try gdb.writes().isEmpty)
        }
    }

    @Test func inNoAckModeTheConnectionClosesRightAfterTheExitPacket() async throws {
        try await Self.withDevice { lab, device, _ in
            let gdb = try GDBChannel(device: device, lab: lab)
            defer { gdb.finish() }
            try gdb.send(packet: "QStartNoAckMode")
            #expect(try gdb.writes() == ["+" + Self.frame("OK")])
            try gdb.send("+")
            try gdb.send(packet: "k")
            #expect(try gdb.writes() == [Self.frame("X09", noAck: true)])
            #expect(!gdb.isOpen, "no ack to wait for")
        }
    }

    /// A launch in ack mode: the process's output waits for the client's `+` packet by packet (however long
    /// that takes: only the exit packet has a grace period), then the exit packet gets its grace.
    @Test func aSlowClientGetsAllOutputAndOnlyTheExitPacketIsTimed() async throws {
        try await Self.withDevice { lab, device, app in
            let gdb = try GDBChannel(device: device, lab: lab)
            defer { gdb.finish() }
            let path = app.executablePath
            let hexPath = GDBPacket.hex(Array(path.utf8)).uppercased()
            // iOS 14 prints dyld statistics only with an override variable such as DYLD_INSERT_LIBRARIES.
            let environment = ["DYLD_PRINT_STATISTICS=1", "DYLD_INSERT_LIBRARIES=/x"].map {
                ("QEnvironmentHexEncoded:" + GDBPacket.hex(Array($0.utf8)), "OK")
            }
            for (packet, reply) in environment + [
                ("A\(hexPath.utf8.count),0,\(hexPath)", "OK"),
                ("qLaunchSuccess", "OK"),
            ] {
                try gdb.send(packet: packet)
                #expect(try gdb.writes() == ["+" + Self.frame(reply)], "\(packet)")
                try gdb.send("+")
            }
            try gdb.send(packet: "c")
            #expect(try gdb.writes().isEmpty, "the reply to `c` is the process's first packet")

            // The whole emulated launch is over in far less than a minute of lab time; the client acks nothing.
            gdb.advance(by: .seconds(60))
            var packets = try gdb.writes()
            try #require(packets.count == 1, "one packet in flight until its `+`: \(packets)")
            #expect(packets[0].hasPrefix("+$O"), "the owed `+` for `c` rides on the first output")
            #expect(gdb.isOpen)

            // Ack one packet at a time until the exit packet is written.
            while packets.last?.hasPrefix("$W") != true {
                try gdb.send("+")
                let next = try gdb.writes()
                try #require(next.count == 1, "\(next)")
                packets += next
            }
            #expect(packets.last == Self.frame("W00"))
            let output = packets.dropLast().map { text -> String in
                let payload = text.drop { $0 != "O" }.dropFirst().prefix { $0 != "#" }
                return String(decoding: GDBPacket.unhex(payload) ?? [], as: UTF8.self)
            }.joined()
            #expect(output.hasPrefix("Total pre-main time: "), "\(output)")
            #expect(output.hasSuffix("[launchbench] done\n"), "\(output)")
            #expect(device.services.launchHistory.count == 1)

            gdb.advance(by: Self.grace - .nanoseconds(1))
            #expect(gdb.isOpen)
            gdb.advance(by: .nanoseconds(1))
            #expect(!gdb.isOpen)
        }
    }
}
