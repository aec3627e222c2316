import Testing

@testable import MobileDevice

@Suite struct GDBRemoteTests {
    @Test func framesLikeLibimobiledevice() {
        #expect(String(decoding: GDBRemote.frame("c"), as: UTF8.self) == "$c#63")
        #expect(String(decoding: GDBRemote.frame("k"), as: UTF8.self) == "$k#6B")
        // PROTOCOLS §7.2: the argument "1024" hex-encoded, checksum 63.
        #expect(
            String(decoding: GDBRemote.frame("QSetMaxPacketSize:31303234"), as: UTF8.self)
                == "$QSetMaxPacketSize:31303234#63")
    }

    @Test func hexRoundTripsAnyBytes() {
        let bytes = Array("DYLD_PRINT_STATISTICS=1 a=b ✓".utf8) + [0xFF, 0x00]
        #expect(GDBRemote.unhex(GDBRemote.hex(bytes)) == bytes)
        #expect(GDBRemote.unhex(Array("48656C6c6F".utf8)) == Array("Hello".utf8))
    }

    @Test func readerSplitsPacketsAcrossChunksAndSkipsAcks() {
        var reader = GDBPacketReader()
        reader.append(Array("+$O48".utf8))
        #expect(reader.next() == nil)
        reader.append(Array("69#aa+$W00#b7".utf8))
        #expect(reader.next() == Array("O4869".utf8))
        #expect(reader.next() == Array("W00".utf8))
        #expect(reader.next() == nil)
        reader.append(Array("$T05thread:1;#0".utf8))
        #expect(reader.next() == nil)  // checksum incomplete
        reader.append(Array("0".utf8))
        #expect(reader.next() == Array("T05thread:1;".utf8))
        #expect(reader.drain().isEmpty)  // nothing left waiting to complete a packet
    }

    /// Over TLS the bytes come one at a time: the same packets as from one chunk, also past the reader's
    /// compaction (4 KiB) and with a `#` split from its checksum.
    @Test func readerGivesTheSamePacketsByteByByte() {
        let long = "O" + String(repeating: "4A", count: 3000)
        let stream = Array("+$OK#9a$\(long)#00junk$W00#b7+$T05;#0".utf8)
        var whole = GDBPacketReader()
        whole.append(stream)
        var expected: [[UInt8]] = []
        while let packet = whole.next() { expected.append(packet) }
        #expect(expected == [Array("OK".utf8), Array(long.utf8), Array("W00".utf8)])

        var bytewise = GDBPacketReader()
        var received: [[UInt8]] = []
        for byte in stream {
            bytewise.append([byte])
            while let packet = bytewise.next() { received.append(packet) }
        }
        #expect(received == expected)
        bytewise.append(Array("0".utf8))
        #expect(bytewise.next() == Array("T05;".utf8))
    }

    @Test func repliesAreClassified() {
        func reply(_ text: String) -> GDBRemote.Reply { .init(payload: Array(text.utf8)) }
        #expect(reply("O48690a") == .output(Array("Hi\n".utf8)))
        #expect(reply("OK") == .ok)
        #expect(reply("W00") == .exited(status: 0))
        #expect(reply("W01") == .exited(status: 1))
        #expect(reply("X09") == .signaled(signal: 9))
        #expect(reply("X0b;description:616263;") == .signaled(signal: 11))
        #expect(reply("T0bthread:303;name:main;") == .stopped(signal: 11))
        #expect(reply("Efailed to get the task") == .error("failed to get the task"))
        #expect(reply("") == .other(""))
    }
}
