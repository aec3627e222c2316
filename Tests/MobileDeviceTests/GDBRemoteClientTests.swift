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
        #expect(try client.setEnvironment("K=ü") == "OK")
        // "/a b" = 2F 61 20 62; "K=ü" = 4B 3D C3 BC; checksums are the byte sums mod 256 in upper-case hex.
        #expect(transport.written == ["$QSetWorkingDir:2F612062#60", "+", "$QEnvironmentHexEncoded:4B3DC3BC#DF", "+"])
    }

    @Test func theArgumentPacketGivesEachArgumentsHexLengthInDecimal() throws {
        let transport = ScriptedTransport(["+$OK#9a"])
        let client = GDBRemoteClient(transport: transport, udid: "U")
        _ = try client.setArguments(["/a", "bc"], timeout: .seconds(1))
        #expect(transport.written.first?.hasPrefix("$A4,0,2F61,4,1,6263#") == true)
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
