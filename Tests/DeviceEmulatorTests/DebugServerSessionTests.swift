import Foundation
import Testing

@testable import DeviceEmulator

@Suite struct DebugServerSessionTests {
    /// A client packet as libimobiledevice formats it: `$` + payload + `#` + UPPERCASE checksum.
    static func packet(_ payload: String) -> [UInt8] {
        let sum = GDBPacket.checksum(Array(payload.utf8))
        return Array("$\(payload)#\(GDBPacket.hex([sum]).uppercased())".utf8)
    }

    static func frame(_ payload: String) -> String { String(decoding: GDBPacket.frame(payload), as: UTF8.self) }

    static func hexArgument(_ text: String) -> String { GDBPacket.hex(Array(text.utf8)).uppercased() }

    static func writes(_ actions: [DebugServerSession.Action]) -> [String] {
        actions.compactMap { if case .write(let bytes) = $0 { String(decoding: bytes, as: UTF8.self) } else { nil } }
    }

    @Test func framingAndChecksums() {
        #expect(String(decoding: GDBPacket.frame("OK"), as: UTF8.self) == "$OK#9a")
        #expect(String(decoding: GDBPacket.frame(""), as: UTF8.self) == "$#00")
        #expect(String(decoding: GDBPacket.frame("W00"), as: UTF8.self) == "$W00#b7")
        #expect(String(decoding: GDBPacket.frame("OK", noAck: true), as: UTF8.self) == "$OK#00")
        // PROTOCOLS.md §7.3: the client's DYLD_PRINT_STATISTICS=1 packet has checksum B1.
        let env = "QEnvironmentHexEncoded:" + Self.hexArgument("DYLD_PRINT_STATISTICS=1")
        #expect(env == "QEnvironmentHexEncoded:44594C445F5052494E545F535441544953544943533D31")
        #expect(String(decoding: Self.packet(env).suffix(2), as: UTF8.self) == "B1")
        #expect(GDBPacket.unhex("4a4B") == [0x4A, 0x4B])
        #expect(GDBPacket.unhex("4") == nil)
        #expect(GDBPacket.unhex("zz") == nil)
        #expect(GDBPacket.escape("a#b$c}d*e") == Array("a}\u{03}b}\u{04}c}]d}\ne".utf8))
    }

    @Test func parserSplitsAcksPacketsAndPartialInput() {
        var parser = GDBStreamParser()
        #expect(parser.feed(Array("+$OK#9".utf8)) == [.ack])
        #expect(parser.feed(Array("A-x".utf8)) == [.packet(Array("OK".utf8), checksumOK: true), .nak])
        #expect(parser.feed(Array("$OK#00".utf8)) == [.packet(Array("OK".utf8), checksumOK: false)])
        #expect(parser.feed([0x03]) == [.interrupt])
    }

    @Test func environmentHexDecodingKeepsOrderEqualsSpacesAndUTF8() {
        let session = DebugServerSession { _ in nil }
        for entry in ["A=1", "OPTS=--x=1 --y=2", "GREETING=grüß dich ✓", "EMPTY=", "A=2"] {
            _ = session.receive(Self.packet("QEnvironmentHexEncoded:" + Self.hexArgument(entry)))
            _ = session.receive(Array("+".utf8))
        }
        #expect(session.request.environment.map(\.name) == ["A", "OPTS", "GREETING", "EMPTY", "A"])
        #expect(session.request.environment.map(\.value) == ["1", "--x=1 --y=2", "grüß dich ✓", "", "2"])
    }

    @Test func argvPacketIsParsedAsLibimobiledeviceBuildsIt() {
        let path = "/private/var/containers/Bundle/Application/X/Sample.app/Sample"
        let args = [path, "--flag", "two words"]
        let body = args.enumerated().map { "\($0.element.utf8.count * 2),\($0.offset),\(Self.hexArgument($0.element))" }
        #expect(DebugServerSession.parseArguments("A" + body.joined(separator: ",")) == args)
        #expect(DebugServerSession.parseArguments("A4,0,41") == nil)
    }

    /// The idevicedebug 1.3.0 transcript of PROTOCOLS.md §9.3, in ack mode.
    @Test func ackModeTranscript() {
        var checked: DebugServerSession.LaunchRequest?
        let session = DebugServerSession { request in
            checked = request
            return nil
        }
        let path = "/private/var/containers/Bundle/Application/X/Sample.app/Sample"
        #expect(Self.writes(session.receive(Self.packet("QSetMaxPacketSize:31303234"))) == ["+$OK#9a"])
        #expect(Self.writes(session.receive(Array("+".utf8))) == [])
        _ = session.receive(
            Self.packet("QSetWorkingDir:" + Self.hexArgument("/private/var/mobile/Containers/Data/Application/C")) + [
                UInt8(ascii: "+")
            ])
        _ = session.receive(
            Self.packet("QEnvironmentHexEncoded:" + Self.hexArgument("DYLD_PRINT_STATISTICS=1")) + [UInt8(ascii: "+")])
        _ = session.receive(Self.packet("A\(path.utf8.count * 2),0,\(Self.hexArgument(path))") + [UInt8(ascii: "+")])
        #expect(checked?.arguments == [path])
        #expect(checked?.workingDirectory == "/private/var/mobile/Containers/Data/Application/C")
        #expect(Self.writes(session.receive(Self.packet("qLaunchSuccess"))) == ["+$OK#9a"])
        _ = session.receive(Array("+".utf8))
        #expect(Self.writes(session.receive(Self.packet("Hc0"))) == ["+$OK#9a"])
        _ = session.receive(Array("+".utf8))

        // `c` has no reply of its own: the `+` rides on the first output packet.
        #expect(session.receive(Self.packet("c")) == [.start])
        let first = Self.writes(session.processOutput(Array("hello\n".utf8)))
        #expect(
            first == [
                String(
                    decoding: [UInt8(ascii: "+")] + GDBPacket.frame("O" + GDBPacket.hex(Array("hello\n".utf8))),
                    as: UTF8.self)
            ])
        // Next packet waits for the client's ack.
        #expect(Self.writes(session.processOutput(Array("x".utf8))).isEmpty)
        // idevicedebug's `OK` packet is unknown to debugserver: empty reply, queued behind the output.
        #expect(Self.writes(session.receive(Array("+".utf8) + Self.packet("OK"))) == [Self.frame("O78")])
        #expect(Self.writes(session.receive(Array("+".utf8))) == ["+$#00"])
        #expect(Self.writes(session.processEnded(.exited(0))).isEmpty)
        let last = session.receive(Array("+".utf8))
        #expect(Self.writes(last) == ["$W00#b7"])
        #expect(!last.contains(.close))
        #expect(session.receive(Array("+".utf8)) == [.close])
    }

    @Test func noAckModeStreamsWithoutWaiting() {
        let session = DebugServerSession { _ in nil }
        #expect(Self.writes(session.receive(Self.packet("QStartNoAckMode"))) == ["+$OK#9a"])
        _ = session.receive(Array("+".utf8))
        _ = session.receive(Array("$A4,0,2F78#00".utf8))
        #expect(Self.writes(session.receive(Array("$qLaunchSuccess#00".utf8))) == ["$OK#00"])
        #expect(session.receive(Array("$c#00".utf8)) == [.start])
        let big = [UInt8](repeating: 0xE2, count: 600)
        let chunks = Self.writes(session.processOutput(big))
        #expect(chunks.count == 3)
        #expect(chunks[0] == "$O" + String(repeating: "e2", count: 256) + "#00")
        #expect(chunks[2] == "$O" + String(repeating: "e2", count: 88) + "#00")
        let end = session.processEnded(.exited(1))
        #expect(end == [.write(Array("$W01#00".utf8)), .close])
    }

    @Test func refusedLaunchAnswersQLaunchSuccessWithTheMessage() {
        let session = DebugServerSession { _ in
            "Unable to launch x because the device was not, or could not be, unlocked."
        }
        _ = session.receive(Self.packet("A4,0,2F78") + [UInt8(ascii: "+")])
        let reply = Self.writes(session.receive(Self.packet("qLaunchSuccess")))
        #expect(reply.count == 1)
        #expect(reply[0].hasPrefix("+$EUnable to launch x because the device was not, or could not be, unlocked.#"))
        _ = session.receive(Array("+".utf8))
        #expect(Self.writes(session.receive(Self.packet("c"))).first?.hasPrefix("+$E01#") == true)
    }

    @Test func killDetachUnknownAndStop() {
        let session = DebugServerSession { _ in nil }
        #expect(Self.writes(session.receive(Self.packet("qHostInfo"))) == ["+$#00"])
        _ = session.receive(Array("+".utf8) + Self.packet("A4,0,2F78") + Array("+".utf8))
        #expect(session.isIdle)
        #expect(session.receive(Self.packet("c")) == [.start])
        #expect(Self.writes(session.processEnded(.stopped(11))) == ["+" + Self.frame("T0bthread:1f03;threads:1f03;")])
        _ = session.receive(Array("+".utf8))
        let kill = session.receive(Self.packet("k"))
        #expect(kill.first == .kill)
        #expect(Self.writes(kill) == ["+" + Self.frame("X09")])
        #expect(session.receive(Array("+".utf8)) == [.close])

        let detaching = DebugServerSession { _ in nil }
        let detach = detaching.receive(Self.packet("D"))
        #expect(detach.first == .detach)
        #expect(Self.writes(detach) == ["+$OK#9a"])

        let bad = DebugServerSession { _ in nil }
        #expect(Self.writes(bad.receive(Array("$OK#00".utf8))) == ["-"])
    }
}

@Suite struct DebugServerOutputJoiningTests {
    @Test func outputWaitingForAnAckJoinsTheWaitingPacket() {
        let session = DebugServerSession { _ in nil }
        _ = session.receive(DebugServerSessionTests.packet("A4,0,2F78") + Array("+".utf8))
        #expect(session.receive(DebugServerSessionTests.packet("c")) == [.start])
        let first = DebugServerSessionTests.writes(session.processOutput(Array("a".utf8)))
        #expect(first == ["+" + DebugServerSessionTests.frame("O61")])
        // While "a" waits for its ack, "b", "c" and 300 × "d" queue up: "bc" + 254 d, then 46 d.
        #expect(session.processOutput(Array("b".utf8)).isEmpty)
        #expect(session.processOutput(Array("c".utf8)).isEmpty)
        #expect(session.processOutput([UInt8](repeating: UInt8(ascii: "d"), count: 300)).isEmpty)
        let second = DebugServerSessionTests.writes(session.receive(Array("+".utf8)))
        #expect(second == [DebugServerSessionTests.frame("O6263" + String(repeating: "64", count: 254))])
        let third = DebugServerSessionTests.writes(session.receive(Array("+".utf8)))
        #expect(third == [DebugServerSessionTests.frame("O" + String(repeating: "64", count: 46))])
    }
}
