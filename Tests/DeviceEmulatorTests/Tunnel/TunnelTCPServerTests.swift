import NIOCore
import Testing

@testable import DeviceEmulator

/// The tunnel's TCP server driven segment by segment, as pymobiledevice3's pmd-pytcp (and a loaded CI
/// box) drive it: handshakes with and without window scaling, duplicates and overlaps, gaps, the
/// peer's window, retransmission, FIN and RST.
@Suite struct TunnelTCPServerTests {
    static let hostPort: UInt16 = 50_000
    static let isn: UInt32 = 0xFFFF_FF00  // wraps during the test: sequence arithmetic is modular

    /// Opens a connection; returns the device's initial sequence number.
    func connect(
        _ host: ScriptedTunnelHost, port: UInt16 = ScriptedTunnelHost.echoPort, windowScale: UInt8? = 7,
        window: UInt16 = 65535, mss: UInt16 = 15940
    ) throws -> UInt32 {
        try host.send(
            TCPSegment(
                sourcePort: Self.hostPort, destinationPort: port, sequence: Self.isn, acknowledgment: 0, flags: [.syn],
                window: window, maximumSegmentSize: mss, windowScale: windowScale))
        let synAck = try #require(try host.received().first)
        try host.send(
            segment(port: port, sequence: Self.isn &+ 1, acknowledgment: synAck.sequence &+ 1, window: window))
        return synAck.sequence
    }

    func segment(
        port: UInt16 = ScriptedTunnelHost.echoPort, sequence: UInt32, acknowledgment: UInt32,
        flags: TCPSegment.Flags = [.ack], window: UInt16 = 65535, payload: [UInt8] = []
    ) -> TCPSegment {
        TCPSegment(
            sourcePort: Self.hostPort, destinationPort: port, sequence: sequence, acknowledgment: acknowledgment,
            flags: flags, window: window, payload: payload)
    }

    @Test func handshakeGivesTwoAddressesOfOnePrefixAndEchoesTheMTU() throws {
        for (asked, agreed) in [(16000, 16000), (1280, 1280), (65000, 16000)] {
            let host = try ScriptedTunnelHost()
            try host.handshake(mtu: asked)
            #expect(host.handshakeReply["type"] as? String == "serverHandshakeResponse")
            #expect(host.handshakeReply["serverRSDPort"] as? Int == 58783)
            let client = try #require(host.handshakeReply["clientParameters"] as? [String: Any])
            #expect(client["mtu"] as? Int == agreed)
            #expect(client["netmask"] as? String == "ffff:ffff:ffff:ffff::")
            #expect(host.deviceAddress.bytes.prefix(8) == host.hostAddress.bytes.prefix(8))
            #expect(host.deviceAddress != host.hostAddress)
            #expect(host.deviceAddress.bytes[0] == 0xFD)  // a unique local address
        }
    }

    @Test func closesAConnectionThatIsNotCDTunnel() throws {
        let host = try ScriptedTunnelHost()
        try host.writeRaw(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        #expect(!host.channel.isActive)
    }

    @Test func synAckScalesTheWindowOnlyWhenThePeerOffersTo() throws {
        let host = try ScriptedTunnelHost()
        try host.handshake()
        try host.send(
            TCPSegment(
                sourcePort: 1, destinationPort: 7, sequence: 100, acknowledgment: 0, flags: [.syn], window: 65535,
                maximumSegmentSize: 15940, windowScale: 7))
        let scaled = try #require(try host.received().first)
        #expect(scaled.flags == [.syn, .ack])
        #expect(scaled.acknowledgment == 101)
        #expect((scaled.windowScale ?? 0) >= 1)  // pmd-pytcp hangs without a shift ≥ 1
        #expect(scaled.maximumSegmentSize == 15940)

        try host.send(
            TCPSegment(
                sourcePort: 2, destinationPort: 7, sequence: 500, acknowledgment: 0, flags: [.syn], window: 65535,
                maximumSegmentSize: 1220))
        let plain = try #require(try host.received().first)
        #expect(plain.windowScale == nil)  // RFC 7323 §2.2: only in answer to one
        #expect(plain.maximumSegmentSize == 1220)
    }

    @Test func synAckNeverEchoesECN() throws {
        let host = try ScriptedTunnelHost()
        try host.handshake()
        // pmd-pytcp's SYN asks for AccECN: AE, CWR and ECE set.
        var tcp = TCPSegment(
            sourcePort: 3, destinationPort: 7, sequence: 9, acknowledgment: 0, flags: [.syn], window: 65535,
            maximumSegmentSize: 15940, windowScale: 7
        ).bytes()
        tcp[12] |= 0x01
        tcp[13] |= 0xC0
        let packet = TunnelPacket(
            source: host.hostAddress, destination: host.deviceAddress, segment: TCPSegment(bytes: tcp)!)
        var raw = packet.serialized()
        // Rewrite the flag bytes the model does not keep, then fix the checksum by hand.
        let tcpStart = raw.readerIndex + 40
        raw.setBytes([tcp[12], tcp[13]], at: tcpStart + 12)
        raw.setInteger(UInt16(0), at: tcpStart + 16)
        let sum = TunnelPacket.checksum(
            source: host.hostAddress, destination: host.deviceAddress,
            tcp: Array(raw.readableBytesView.dropFirst(40)))
        raw.setInteger(sum, at: tcpStart + 16)
        try host.channel.writeInbound(raw)
        let reply = try #require(try host.channel.readOutbound(as: ByteBuffer.self))
        let bytes = Array(reply.readableBytesView)
        #expect(bytes[40 + 13] == 0x12)  // exactly SYN|ACK: no ECE, no CWR
        #expect(bytes[40 + 12] & 0x0F == 0)  // no AE
    }

    @Test func deliversInOrderDataAndAcknowledgesAtOnce() throws {
        let host = try ScriptedTunnelHost()
        try host.handshake()
        let deviceISN = try connect(host)
        try host.send(segment(sequence: Self.isn &+ 1, acknowledgment: deviceISN &+ 1, payload: Array("abc".utf8)))
        let replies = try host.received()  // no clock advance: nothing waits
        #expect(replies.contains { $0.payload.isEmpty && $0.acknowledgment == Self.isn &+ 4 })
        #expect(replies.contains { $0.payload == Array("abc".utf8) && $0.sequence == deviceISN &+ 1 })
    }

    @Test func reacknowledgesDuplicatesAndTrimsOverlaps() throws {
        let host = try ScriptedTunnelHost()
        try host.handshake()
        let deviceISN = try connect(host, port: ScriptedTunnelHost.sinkPort)
        let start = Self.isn &+ 1
        try host.send(
            segment(port: 9, sequence: start, acknowledgment: deviceISN &+ 1, payload: Array("abcdef".utf8)))
        _ = try host.received()
        // A tail-loss probe covering bytes already delivered: ACKed again, not delivered twice.
        try host.send(
            segment(port: 9, sequence: start &+ 2, acknowledgment: deviceISN &+ 1, payload: Array("cdef".utf8)))
        let duplicateAck = try host.received()
        #expect(duplicateAck.map(\.acknowledgment) == [start &+ 6])
        // An RTO retransmission from the first byte that carries new bytes too: only "gh" is new.
        try host.send(
            segment(port: 9, sequence: start, acknowledgment: deviceISN &+ 1, payload: Array("abcdefgh".utf8)))
        #expect(try host.received().map(\.acknowledgment) == [start &+ 8])
        #expect(host.sunk == Array("abcdefgh".utf8))
    }

    @Test func dropsASegmentAfterAGapWithADuplicateAck() throws {
        let host = try ScriptedTunnelHost()
        try host.handshake()
        let deviceISN = try connect(host, port: ScriptedTunnelHost.sinkPort)
        let start = Self.isn &+ 1
        try host.send(
            segment(port: 9, sequence: start &+ 3, acknowledgment: deviceISN &+ 1, payload: Array("def".utf8)))
        #expect(try host.received().map(\.acknowledgment) == [start])  // still waiting for byte 0
        #expect(host.sunk.isEmpty)
        try host.send(segment(port: 9, sequence: start, acknowledgment: deviceISN &+ 1, payload: Array("abc".utf8)))
        try host.send(
            segment(port: 9, sequence: start &+ 3, acknowledgment: deviceISN &+ 1, payload: Array("def".utf8)))
        #expect(try host.received().map(\.acknowledgment) == [start &+ 3, start &+ 6])
        #expect(host.sunk == Array("abcdef".utf8))
    }

    @Test func sendsNoMoreThanThePeersWindowInSegmentsOfItsMSS() throws {
        let host = try ScriptedTunnelHost(chargenBytes: 3000)
        try host.handshake()
        let deviceISN = try connect(
            host, port: ScriptedTunnelHost.chargenPort, windowScale: nil, window: 1000, mss: 500)
        let first = try host.received()
        #expect(first.map(\.payload.count) == [500, 500])
        #expect(first.map(\.sequence) == [deviceISN &+ 1, deviceISN &+ 501])
        // The peer takes 500 bytes and keeps its window at 1000: one more segment fits.
        try host.send(segment(port: 19, sequence: Self.isn &+ 1, acknowledgment: deviceISN &+ 501, window: 1000))
        let next = try host.received()
        #expect(next.map(\.sequence) == [deviceISN &+ 1001])
        // A window of 2000 lets the rest go.
        try host.send(segment(port: 19, sequence: Self.isn &+ 1, acknowledgment: deviceISN &+ 1501, window: 2000))
        #expect(try host.received().map(\.payload.count) == [500, 500, 500])
    }

    @Test func retransmitsFromTheOldestUnacknowledgedByteWithBackOff() throws {
        let host = try ScriptedTunnelHost(chargenBytes: 100)
        try host.handshake()
        let deviceISN = try connect(host, port: ScriptedTunnelHost.chargenPort)
        #expect(try host.received().map(\.sequence) == [deviceISN &+ 1])  // lost on the way
        host.advance(milliseconds: 299)
        #expect(try host.received().isEmpty)
        host.advance(milliseconds: 1)
        let resent = try host.received()
        #expect(resent.map(\.sequence) == [deviceISN &+ 1])
        #expect(resent.first?.payload.count == 100)
        host.advance(milliseconds: 599)  // the timeout doubled
        #expect(try host.received().isEmpty)
        host.advance(milliseconds: 1)
        #expect(try host.received().count == 1)
        try host.send(segment(port: 19, sequence: Self.isn &+ 1, acknowledgment: deviceISN &+ 101))
        host.advance(milliseconds: 10_000)
        #expect(try host.received().isEmpty)  // acknowledged: the timer stops
    }

    @Test func probesAShutWindowWithoutGivingUp() throws {
        let host = try ScriptedTunnelHost(chargenBytes: 100)
        try host.handshake()
        let deviceISN = try connect(host, port: ScriptedTunnelHost.chargenPort, windowScale: nil, window: 0)
        #expect(try host.received().isEmpty)  // nothing fits a shut window
        var probes: [TCPSegment] = []
        for _ in 0..<30 {  // a minute of a peer that answers every probe with window 0
            host.advance(milliseconds: 4000)
            let sent = try host.received()
            probes += sent
            if !sent.isEmpty {
                try host.send(segment(port: 19, sequence: Self.isn &+ 1, acknowledgment: deviceISN &+ 1, window: 0))
            }
        }
        #expect(probes.count >= 10)
        #expect(probes.allSatisfy { $0.payload.count == 1 && !$0.flags.contains(.rst) })
        #expect(host.openConnections == 1)
        // The window opens: the rest follows.
        try host.send(segment(port: 19, sequence: Self.isn &+ 1, acknowledgment: deviceISN &+ 1, window: 1000))
        let rest = try host.received()
        #expect(rest.map { $0.sequence &+ UInt32($0.payload.count) }.max() == deviceISN &+ 101)
    }

    @Test func resendsTheSynAckWhenTheHandshakeStalls() throws {
        let host = try ScriptedTunnelHost()
        try host.handshake()
        let syn = TCPSegment(
            sourcePort: 4, destinationPort: 7, sequence: 77, acknowledgment: 0, flags: [.syn], window: 65535,
            maximumSegmentSize: 1400, windowScale: 7)
        try host.send(syn)
        let synAck = try #require(try host.received().first)
        try host.send(syn)  // the host resends its SYN: the same SYN-ACK again
        #expect(try host.received().map(\.sequence) == [synAck.sequence])
        host.advance(milliseconds: 300)
        #expect(try host.received().map(\.flags) == [[.syn, .ack]])
    }

    @Test func closesWithFINBothWays() throws {
        let host = try ScriptedTunnelHost()
        try host.handshake()
        let deviceISN = try connect(host)
        #expect(host.openConnections == 1)
        try host.send(segment(sequence: Self.isn &+ 1, acknowledgment: deviceISN &+ 1, flags: [.fin, .ack]))
        let replies = try host.received()
        // The FIN is acknowledged, and the echo service closes too.
        #expect(replies.contains { $0.acknowledgment == Self.isn &+ 2 && !$0.flags.contains(.fin) })
        let fin = try #require(replies.first { $0.flags.contains(.fin) })
        #expect(fin.sequence == deviceISN &+ 1)
        #expect(host.openConnections == 1)  // until our FIN is acknowledged
        try host.send(segment(sequence: Self.isn &+ 2, acknowledgment: deviceISN &+ 2))
        #expect(host.openConnections == 0)
    }

    @Test func forgetsAConnectionOnReset() throws {
        let host = try ScriptedTunnelHost()
        try host.handshake()
        let deviceISN = try connect(host)
        try host.send(segment(sequence: Self.isn &+ 1, acknowledgment: deviceISN &+ 1, flags: [.rst, .ack]))
        #expect(host.openConnections == 0)
        // Later segments on it are refused.
        try host.send(segment(sequence: Self.isn &+ 1, acknowledgment: deviceISN &+ 1, payload: [1]))
        #expect(try host.received().map(\.flags) == [[.rst]])
    }

    @Test func refusesAClosedPortWithReset() throws {
        let host = try ScriptedTunnelHost()
        try host.handshake()
        try host.send(
            TCPSegment(
                sourcePort: 5, destinationPort: 4444, sequence: 1000, acknowledgment: 0, flags: [.syn], window: 65535))
        let reset = try #require(try host.received().first)
        #expect(reset.flags == [.rst, .ack])
        #expect(reset.acknowledgment == 1001)
        #expect(host.openConnections == 0)
    }

    @Test func parsesTheStreamWhateverTheReadSizes() throws {
        // The same conversation, first in one write, then one byte per write.
        var stream: [UInt8] = []
        let request = Array(#"{"type": "clientHandshakeRequest", "mtu": 16000}"#.utf8)
        stream += Array("CDTunnel".utf8) + [0, UInt8(request.count)] + request
        let reference = try ScriptedTunnelHost()
        try reference.handshake()
        for sequence: UInt32 in [10, 20] {
            let syn = TCPSegment(
                sourcePort: UInt16(sequence), destinationPort: 9, sequence: sequence, acknowledgment: 0, flags: [.syn],
                window: 65535, windowScale: 7)
            stream += Array(
                TunnelPacket(source: reference.hostAddress, destination: reference.deviceAddress, segment: syn)
                    .serialized().readableBytesView)
        }
        let whole = try ScriptedTunnelHost()
        try whole.writeRaw(stream)
        let trickled = try ScriptedTunnelHost()
        for byte in stream { try trickled.writeRaw([byte]) }
        #expect(whole.openConnections == 2)
        #expect(trickled.openConnections == 2)
    }
}
