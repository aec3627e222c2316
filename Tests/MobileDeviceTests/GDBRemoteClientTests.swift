import LaunchBench
import Testing

@testable import MobileDevice

/// The bytes our GDB remote client writes and how it reads replies, over an in-memory transport.
@Suite struct GDBRemoteClientTests {
    /// Records writes; answers reads from a script, one chunk per read.
    final class ScriptedTransport: DebugserverTransport {
        var written: [String] = []
        var chunks: [String]
        let peerDescription = "scripted debugserver"

        init(_ chunks: [String]) { self.chunks = chunks }

        func write(_ bytes: [UInt8]) throws { written.append(String(decoding: bytes, as: UTF8.self)) }

        func read(timeoutMilliseconds: UInt32) -> DebugserverRead {
            chunks.isEmpty ? .closed("script ended") : .bytes(Array(chunks.removeFirst().utf8))
        }
    }

    @Test func argumentsAreHexEncodedInUpperCaseAsLibimobiledeviceSendsThem() throws {
        let transport = ScriptedTransport(["+$OK#9a", "+$OK#9a"])
        let client = GDBRemoteClient(transport: transport, udid: "U")
        #expect(try client.command("QSetWorkingDir:", argument: "/a b") == "OK")
        #expect(try client.command(GDBRemoteClient.environmentPacket("K=ü")) == "OK")
        // "/a b" = 2F 61 20 62; "K=ü" = 4B 3D C3 BC; checksums are the byte sums mod 256 in upper-case hex.
        #expect(transport.written == ["$QSetWorkingDir:2F612062#60", "+", "$QEnvironmentHexEncoded:4B3DC3BC#DF", "+"])
    }

    @Test func theArgumentPacketGivesEachArgumentsHexLengthInDecimal() throws {
        let transport = ScriptedTransport(["+$OK#9a"])
        let client = GDBRemoteClient(transport: transport, udid: "U")
        _ = try client.command(GDBRemoteClient.argumentsPacket(["/a", "bc"]))
        #expect(transport.written.first?.hasPrefix("$A4,0,2F61,4,1,6263#") == true)
    }

    @Test func withoutAcksAPipelineIsOneWriteAndItsRepliesComeBackInOrder() throws {
        let transport = ScriptedTransport(["+$OK#9a", "$OK#9a$E6", "1#ac$OK#9a"])
        let client = GDBRemoteClient(transport: transport, udid: "U")
        #expect(try client.startNoAckMode())
        let replies = try client.pipeline([
            .init(packet: "QSetMaxPacketSize:31303234", name: "QSetMaxPacketSize"),
            .init(packet: "QSetWorkingDir:2F", name: "QSetWorkingDir"), .init(packet: "Hc0", name: "Hc0"),
        ])
        #expect(replies == ["OK", "E61", "OK"])
        // The OK to QStartNoAckMode is still acknowledged (debugserver ignores it); nothing after it is.
        #expect(
            transport.written == [
                "$QStartNoAckMode#B0", "+", "$QSetMaxPacketSize:31303234#63$QSetWorkingDir:2F#2F$Hc0#DB",
            ])
        try client.acknowledge()
        #expect(transport.written.count == 3)
    }

    @Test func aDebugserverWithoutNoAckModeGetsOnePacketAtATimeWithAcks() throws {
        let transport = ScriptedTransport(["+$#00", "+$OK#9a", "+$OK#9a"])
        let client = GDBRemoteClient(transport: transport, udid: "U")
        #expect(try !client.startNoAckMode())
        let replies = try client.pipeline([
            .init(packet: "QSetMaxPacketSize:31303234", name: "QSetMaxPacketSize"), .init(packet: "Hc0", name: "Hc0"),
        ])
        #expect(replies == ["OK", "OK"])
        #expect(
            transport.written == [
                "$QStartNoAckMode#B0", "+", "$QSetMaxPacketSize:31303234#63", "+", "$Hc0#DB", "+",
            ])
    }

    @Test func bytesReadWhileWaitingForAReplyComeBackFromTheNextRead() throws {
        let transport = ScriptedTransport(["+$OK#9a$O6869#", "00"])
        let client = GDBRemoteClient(transport: transport, udid: "U")
        #expect(try client.command("Hc0") == "OK")
        guard case .bytes(let rest) = client.read(timeoutMilliseconds: 1) else {
            Issue.record("the output packet read ahead was lost")
            return
        }
        #expect(String(decoding: rest, as: UTF8.self) == "$O6869#")
    }

    @Test func aConnectionClosedBeforeTheReplyNamesThePeer() throws {
        let client = GDBRemoteClient(transport: ScriptedTransport([]), udid: "U")
        #expect {
            try client.command("qLaunchSuccess")
        } throws: { error in
            "\(error)".contains("scripted debugserver closed the connection before replying")
        }
    }
}
