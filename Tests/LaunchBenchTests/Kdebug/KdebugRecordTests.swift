import Foundation
import LaunchBench
import Testing

extension KdebugTests {
    @Suite("Kdebug records and framing")
    struct KdebugRecordTests {
        /// pykdebugparser tests/test_kevent.py:8 (2da81e7): a record whose args hold text, cpuid 1.
        @Test func decodesPykdebugparsersRecord() throws {
            let raw: [UInt8] =
                [0x8B, 0xF3, 0x8F, 0x31, 0x13, 0xEB, 0x03, 0x00] + Array("ework_BusinessChat-7.0.1-py2.py3".utf8)
                + [0xDE, 0x4A, 0x88, 0x00, 0x00, 0x00, 0x00, 0x00, 0x90, 0x00, 0x01, 0x03, 0x01, 0x00, 0x00, 0x00]
                + [UInt8](repeating: 0, count: 8)
            let record = try #require(KdebugRecord(bytes: raw))
            #expect(record.timestamp == 0x3_EB13_318F_F38B)
            #expect(record.arg1 == 0x7542_5F6B_726F_7765)
            #expect(record.arg2 == 0x6843_7373_656E_6973)
            #expect(record.arg3 == 0x312E_302E_372D_7461)
            #expect(record.arg4 == 0x3379_702E_3279_702D)
            #expect(record.threadID == 8_932_062)
            #expect(record.debugID.rawValue == 50_397_328)
            #expect(record.debugID.eventID.rawValue == 50_397_328)
            #expect(record.debugID.function == .none)
            #expect(record.cpuID == 1)
            #expect(String(decoding: record.argumentBytes, as: UTF8.self) == "ework_BusinessChat-7.0.1-py2.py3")
            #expect(record.bytes == raw)
        }

        /// pykdebugparser tests/test_kevent.py:19: all ones.
        @Test func decodesAllOnes() throws {
            let record = try #require(KdebugRecord(bytes: [UInt8](repeating: 0xFF, count: 64)))
            #expect(record.timestamp == .max && record.arg4 == .max && record.threadID == .max)
            #expect(record.debugID.eventID.rawValue == 0xFFFF_FFFC)
            #expect(record.debugID.function == .startAndEnd)
            #expect(record.cpuID == .max)
            #expect(KdebugRecord(bytes: [UInt8](repeating: 0, count: 63)) == nil)
        }

        @Test func splitsDebugIDs() {
            let end = KdebugDebugID(rawValue: 0x1F07_0006)
            #expect(end.eventClass == 31)
            #expect(end.subclass == 7)
            #expect(end.code == 1)
            #expect(end.function == .end)
            #expect(end.eventID == .dyldLaunchExecutable)
            #expect(KdebugDebugID(eventClass: 31, subclass: 7, code: 13, function: .start).rawValue == 0x1F07_0035)
            #expect(KdebugDebugID(eventClass: 7, subclass: 1, code: 0).rawValue == 0x0701_0000)
            #expect(KdebugDebugID.traceStringExec.code == 2)
            #expect(KdebugDebugID(rawValue: 0x0700_0008).description == "0x07000008")
        }

        @Test func convertsTicks() throws {
            #expect(MachTimebase.iPhone.milliseconds(24_000) == 1.0)
            #expect(MachTimebase.iPhone.nanoseconds(3) == 125)
            #expect(MachTimebase.iPhone.milliseconds(from: 72_000, to: 48_000) == -1.0)
            #expect(MachTimebase(tickFrequency: 24_000_000) == MachTimebase.iPhone)
            #expect(MachTimebase(tickFrequency: 1_000_000_000) == MachTimebase.nanoseconds)
            #expect(MachTimebase(numer: 1, denom: 0) == nil)
            #expect(MachTimebase(tickFrequency: 0) == nil)
        }

        /// The synth fixture: a 4 KiB header chunk (magic, kd_header_v2, 2 thread map entries, zeros) and 45 records.
        @Test func decodesPaddedHeaderChunk() throws {
            let bytes = try KdebugFixtures.bytes("synth-launch.kdebug")
            #expect(bytes.count == 4096 + 45 * 64)
            let (header, offset) = try KdebugHeader.decode(bytes)
            #expect(offset == 4096)
            #expect(header.flags == 1)
            #expect(header.tickFrequency == 24_000_000)
            #expect(
                header.threads == [
                    KdebugThread(threadID: 101, pid: 1, processName: "launchd"),
                    KdebugThread(threadID: 0x11000, pid: 4243, processName: "Demo"),
                ])
            let trace = try KdebugFixtures.synth()
            #expect(trace.records.count == 45)
            #expect(trace.droppedBytes == 0)
            #expect(trace.records[0].debugID == .traceDataNewThread)
            #expect(trace.records[0].timestamp == 1_000_000_000 - 7200)
            #expect(trace.records[1].debugID == .traceDataExec)
            #expect(trace.records[1].arg1 == 4243)
            #expect(trace.records[44].debugID.rawValue == 0x1F07_0006)
        }

        /// pykdebugparser tests/test_pykdebugparser.py:9-12: magic, 0x11c zero bytes (no threads), then a record at
        /// once, with no padding to 4 KiB.
        @Test func decodesUnpaddedHeader() throws {
            var bytes = KdebugHeader.rawVersion2Magic + [UInt8](repeating: 0, count: 0x11C)
            bytes[20] = 1  // KDBG_LP64; the pykdebugparser test leaves it 0 because its parser ignores it.
            bytes +=
                [0xA5, 0x30, 0x14, 0x37, 0x5F, 0x06, 0x00, 0x00] + [UInt8](repeating: 0, count: 24)
                + [0xC6, 0x01, 0, 0, 0, 0, 0, 0, 0x79, 0xD8, 0x09, 0, 0, 0, 0, 0, 0x2A, 0x03, 0x0C, 0x04]
                + [UInt8](repeating: 0, count: 12)
            let trace = try KdebugTrace(bytes: bytes)
            #expect(trace.header?.threads == [])
            #expect(
                trace.records == [
                    KdebugRecord(
                        timestamp: 7_006_015_729_829, debugID: KdebugDebugID(rawValue: 67_896_106),
                        args: [0, 0, 0, 454],
                        threadID: 645_241)
                ])
            #expect(trace.records[0].debugID.eventID.rawValue == 67_896_104)
            #expect(trace.records[0].debugID.function == .end)
        }

        @Test func rejectsBadHeaders() {
            let short = KdebugHeader.rawVersion2Magic + [UInt8](repeating: 0, count: 10)
            #expect(throws: KdebugFormatError.truncatedHeader(needed: 288, count: 14)) { try KdebugTrace(bytes: short) }
            var threads = KdebugHeader.rawVersion2Magic + [UInt8](repeating: 0, count: 284)
            threads[4] = 2
            threads[20] = 1
            #expect(throws: KdebugFormatError.truncatedHeader(needed: 352, count: 288)) {
                try KdebugTrace(bytes: threads)
            }
            var notLP64 = KdebugHeader.rawVersion2Magic + [UInt8](repeating: 0, count: 284)
            notLP64[20] = 0
            #expect(throws: KdebugFormatError.not64Bit(flags: 0)) { try KdebugTrace(bytes: notLP64) }
        }

        /// The tap's message order: an ack notice, a stackshot, the header chunk, then record chunks.
        @Test func decodesTapChunks() throws {
            let file = try KdebugFixtures.bytes("synth-launch.kdebug")
            var decoder = KdebugChunkDecoder()
            #expect(try decoder.decode(chunk: Array("bplist00\u{0}notice".utf8)).isEmpty)
            #expect(try decoder.decode(chunk: KdebugChunkDecoder.stackshotMagic + [1, 2, 3, 4]).isEmpty)
            var records = try decoder.decode(chunk: file[0..<(4096 + 64)])
            #expect(records.count == 1)
            #expect(decoder.header?.threads.count == 2)
            records += try decoder.decode(
                chunk: Array(file[(4096 + 64)..<(4096 + 20 * 64)]) + [UInt8](repeating: 7, count: 10))
            records += try decoder.decode(chunk: file[(4096 + 20 * 64)...])
            #expect(decoder.skippedChunks == 2)
            #expect(decoder.droppedBytes == 10)  // a short tail is dropped, as pymobiledevice3 drops it
            #expect(records == (try KdebugFixtures.synth()).records)
            // A later chunk that happens to start with the magic is records, not a header.
            let lookalike = KdebugHeader.rawVersion2Magic + [UInt8](repeating: 0, count: 60)
            #expect(try decoder.decode(chunk: lookalike).count == 1)
        }
    }
}
