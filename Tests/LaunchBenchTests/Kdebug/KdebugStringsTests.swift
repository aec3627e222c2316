import Foundation
import LaunchBench
import Testing

extension KdebugTests {
    @Suite("kdebug string reassembly")
    struct KdebugStringsTests {
        /// matan1008/pykdebugparser tests/traces/test_dyld.py:111-150 (2da81e7), test_timing_dlopen: a path in a
        /// START record (16 bytes), two NONE records (32 bytes each) and an END record ("n"), then the id's release.
        @Test func reassemblesARealPathAcrossRecords() throws {
            let records = try KdebugTrace(bytes: KdebugFixtures.bytes("pykdebugparser-dyld.kdebug")).records
            var strings = KdebugStrings()
            for record in records { strings.consume(record) }
            let path = "/System/Library/PrivateFrameworks/AppleFSCompression.framework/AppleFSCompression"
            #expect(strings.strings == [8_118_864_228_242_217_487: path])
            #expect(strings[0x70AC_0000_0000_DA0F] == path)
        }

        @Test func reassemblesTheSynthPaths() throws {
            var strings = KdebugStrings()
            for record in try KdebugFixtures.synth().records { strings.consume(record) }
            #expect(
                strings.strings == [
                    0x101: KdebugFixtures.mainExecutable, 0x110: KdebugFixtures.imageA, 0x111: KdebugFixtures.imageB,
                    0x112: KdebugFixtures.imageC,
                ])
        }

        /// Two threads send strings at once; their records interleave, and each thread's text stays its own.
        @Test func keepsInterleavedThreadsApart() {
            func text(_ string: String) -> [UInt64] {
                let bytes = Array(string.utf8)
                return stride(from: 0, to: bytes.count, by: 8).map { start in
                    bytes[start..<min(start + 8, bytes.count)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                }
            }
            let start = KdebugDebugID(rawValue: 0x0701_0001)
            let middle = KdebugDebugID(rawValue: 0x0701_0000)
            let end = KdebugDebugID(rawValue: 0x0701_0002)
            let one = text("/one/0123456789a" + "bcdefghijklmnopqrstuvwxyz0123456" + "tail-one")
            let two = text("/two/0123456789a" + "TAIL-TWO")
            let records = [
                KdebugRecord(timestamp: 1, debugID: start, args: [0x1F07_0008, 1] + one[0..<2], threadID: 10),
                KdebugRecord(timestamp: 2, debugID: start, args: [0x1F07_0008, 2] + two[0..<2], threadID: 20),
                KdebugRecord(timestamp: 3, debugID: middle, args: Array(one[2..<6]), threadID: 10),
                KdebugRecord(timestamp: 4, debugID: end, args: Array(two[2..<3]), threadID: 20),
                KdebugRecord(timestamp: 5, debugID: end, args: Array(one[6..<7]), threadID: 10),
                // A NONE record with nothing pending, and a record of another class: both ignored.
                KdebugRecord(timestamp: 6, debugID: middle, args: text("stray"), threadID: 30),
                KdebugRecord(timestamp: 7, debugID: .dyldMapImage, args: [1, 2], threadID: 10),
            ]
            var strings = KdebugStrings()
            for record in records { strings.consume(record) }
            #expect(
                strings.strings == [
                    1: "/one/0123456789abcdefghijklmnopqrstuvwxyz0123456tail-one", 2: "/two/0123456789aTAIL-TWO",
                ])
        }
    }
}
