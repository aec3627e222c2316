import LaunchBench
import Testing

extension KdebugTests {
    /// `parse` reads a capture piece by piece (issue 44 item 9): the same launches as a whole read, records let
    /// go at each launch's first frame, and an LZ4 stream that would decode past its cap refused by its offset.
    @Suite("Kdebug captures streamed")
    struct KdebugStreamingTests {
        static let ms = KdebugLaunchesTests.ms

        /// `launches` app launches, each with a first frame 30 ms after its exec (UIKit's BEGIN 1 ms before), then
        /// `after` records of the
        /// running app, among `noise` records of a process that never execs.
        static func session(launches: Int, after: Int = 0, noise: Int = 0) -> [KdebugRecord] {
            var records: [KdebugRecord] = []
            let frameEnd = KdebugDebugID(rawValue: KdebugDebugID.initialFrameRendering.rawValue | 2)
            for launch in 0..<launches {
                let at = UInt64(launch) * 100 * ms
                let thread = UInt64(0x1000 + launch)
                records += KdebugLaunchesTests.exec(at, pid: UInt64(1000 + launch), thread: thread, name: "App")
                records += KdebugLaunchesTests.dyldLaunch(
                    at + 2 * ms, thread: thread, pair: 1, mainAt: at + UInt64(7 + launch % 7) * ms)
                // UIKit's Initial Frame Rendering BEGIN (0x2B870030), then its END: the first frame.
                records.append(
                    KdebugRecord(
                        timestamp: at + 29 * ms, debugID: KdebugDebugID(rawValue: 0x2B87_0030), threadID: thread))
                records.append(KdebugRecord(timestamp: at + 30 * ms, debugID: frameEnd, threadID: thread))
                for index in 0..<after {
                    records.append(
                        KdebugRecord(
                            timestamp: at + 31 * ms + UInt64(index), debugID: KdebugDebugID(rawValue: 0x0403_0000),
                            threadID: thread))
                }
                for index in 0..<noise {
                    records.append(
                        KdebugRecord(
                            timestamp: at + UInt64(index) * 90, debugID: KdebugDebugID(rawValue: 0x0403_0000),
                            threadID: 7))
                }
            }
            return records
        }

        /// A RAW_VERSION2 file of `records` (no thread map), as kperf writes it.
        static func file(_ records: [KdebugRecord]) -> [UInt8] {
            var bytes = KdebugHeader.rawVersion2Magic + [0, 0, 0, 0]  // no threads
            bytes += [UInt8](repeating: 0, count: 12)  // seconds, microseconds
            bytes += [1, 0, 0, 0]  // KDBG_LP64
            bytes += [0x00, 0x36, 0x6E, 0x01, 0, 0, 0, 0]  // 24 000 000 Hz
            bytes += [UInt8](repeating: 0, count: 4096 - bytes.count)
            for record in records { bytes += record.bytes }
            return bytes
        }

        /// Streamed in odd-sized pieces, a file gives exactly the launches a whole read gives.
        @Test func streamingMatchesAWholeRead() throws {
            let records = Self.session(launches: 40, after: 20, noise: 50)
            let bytes = Self.file(records)
            let whole = KdebugLaunches.find(in: try KdebugFile.read(bytes).trace, timebase: .iPhone)
            var offset = 0
            let streamed = try KdebugFileLaunches(size: bytes.count) {
                defer { offset += 997 }
                return offset < bytes.count ? bytes[offset..<min(offset + 997, bytes.count)] : nil
            }
            #expect(streamed.launches.count == 40)
            #expect(streamed.launches.map(\.pid) == whole.map(\.pid))
            #expect(streamed.launches.map(\.phases.totalPremainMs) == whole.map(\.phases.totalPremainMs))
            #expect(streamed.launches.map(\.phases.firstFrameMs) == (0..<40).map { _ in 30 })
            #expect(streamed.notes.isEmpty, "\(streamed.notes)")
        }

        /// Each launch's records are let go at its first frame: 300 launches whose apps run on for 1,000 records
        /// each are measured whole by a finder that may hold 500 records, with nothing cut.
        @Test func recordsAreLetGoAtTheFirstFrame() {
            var finder = KdebugLaunchFinder(threads: [], timebase: .iPhone, recordCap: 500)
            for record in Self.session(launches: 300, after: 1_000, noise: 10) { finder.consume(record) }
            let (launches, notes) = finder.finish()
            #expect(notes.isEmpty, "\(notes)")
            #expect(launches.count == 300)
            #expect(launches.allSatisfy { $0.phases.firstFrameMs == 30 && $0.phases.totalPremainMs != nil })
        }

        /// Past the cap, the launch holding the most is measured where it stands, says so, and counts no page-ins.
        @Test func aLaunchPastTheCapSaysItWasCut() {
            var finder = KdebugLaunchFinder(threads: [], timebase: .iPhone, recordCap: 50)
            var records = Self.session(launches: 1)
            records.removeAll { $0.debugID.eventID == .initialFrameRendering }  // no first frame: held on
            for index in 0..<100 {
                records.append(
                    KdebugRecord(
                        timestamp: 40 * Self.ms + UInt64(index), debugID: KdebugDebugID(rawValue: 0x0403_0000),
                        threadID: 0x1000))
            }
            for record in records { finder.consume(record) }
            let (launches, notes) = finder.finish()
            #expect(launches.count == 1)
            #expect(launches.first?.phases.totalPremainMs == 7)
            #expect(launches.first?.phases.pageIns == nil)
            #expect(launches.first?.phases.warnings.contains { $0.contains("passed 50") } == true)
            #expect(notes.count == 1 && notes[0].contains("1 launch(es)"), "\(notes)")
        }

        /// Records up to the window out of place are put back in order; one later than that is counted.
        @Test func recordsOutOfOrderAreReordered() {
            var order = KdebugRecordOrder(capacity: 4)
            var out: [UInt64] = []
            for time: UInt64 in [5, 3, 4, 1, 2, 9, 8, 7, 6, 10, 11, 12, 0] {
                order.push(KdebugRecord(timestamp: time, debugID: .traceDataExec)) { out.append($0.timestamp) }
            }
            order.flush { out.append($0.timestamp) }
            #expect(out == [1, 2, 3, 4, 5, 6, 7, 8, 0, 9, 10, 11, 12])
            #expect(order.late == 1)
        }

        /// One bv41 block that decodes to `size` bytes of `byte`: a literal and one match reaching back 1 byte.
        static func bomb(_ size: Int, byte: UInt8 = 0x41) -> [UInt8] {
            var body: [UInt8] = [0x1F, byte, 0x01, 0x00]  // 1 literal; match length 15 + 4 + extension
            var left = size - 1 - 4 - 15
            while left >= 255 {
                body.append(255)
                left -= 255
            }
            body.append(UInt8(left))
            body.append(0x00)  // the last sequence: no literals
            func u32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
            return Array("bv41".utf8) + u32(size) + u32(body.count) + body
        }

        /// The file in small: 64 blocks that each decode to 16 KiB from a few bytes, against a cap of
        /// 256 KiB, are refused at the 17th block's offset, before it is decoded. The real cap (256 MiB) runs the same
        /// code; decoding 256 MiB byte by byte is too slow for a debug test under load, so the size is scaled down.
        @Test func anLZ4BombIsRefusedByItsOffset() throws {
            let block = Self.bomb(16 << 10)
            let stream = (0..<64).flatMap { _ in block } + Array("bv4$".utf8)
            let refusedAt = block.count * 16  // the 17th block would pass 256 KiB
            let expected = LZ4Block.DecodeError.tooLarge(
                offset: refusedAt, decoded: 256 << 10, declared: 16 << 10, cap: 256 << 10)
            #expect(throws: expected) { try LZ4Block.decode(stream, cap: 256 << 10) }
        }

        /// Through parse's streaming reader, with the real cap: a block that declares more than 256 MiB is refused
        /// at its offset without being decoded (before, such a file decoded for 900 s and was still going).
        @Test(.timeLimit(.minutes(1))) func aCaptureWhoseLZ4DeclaresPastTheCapIsRefused() throws {
            let stream = Self.bomb(LZ4Block.decodedCap + (1 << 20)) + Array("bv4$".utf8)
            let expected = LZ4Block.DecodeError.tooLarge(
                offset: 0, decoded: 0, declared: LZ4Block.decodedCap + (1 << 20), cap: LZ4Block.decodedCap)
            #expect(throws: KdebugFileError.lz4(offset: 0, reason: expected.described.reason)) {
                var offset = 0
                _ = try KdebugFileLaunches(size: stream.count) {
                    defer { offset += 1 << 20 }
                    return offset < stream.count ? stream[offset..<min(offset + (1 << 20), stream.count)] : nil
                }
            }
        }

        /// A block that decodes past the size its header declares is refused at the match that passes it.
        @Test func aBlockDecodingPastItsDeclaredSizeIsRefused() {
            var block = Self.bomb(1_000)
            block[4...7] = [100, 0, 0, 0]  // declares 100 bytes
            #expect {
                try LZ4Block.decode(block)
            } throws: { error in
                guard case .corrupt(let offset, let reason) = error as? LZ4Block.DecodeError else { return false }
                return offset == 14 && reason.contains("more bytes than its header says")
            }
            #expect(throws: LZ4Block.DecodeError.tooLarge(offset: 0, decoded: 0, declared: 1_000, cap: 999)) {
                try LZ4Block.decode(Self.bomb(1_000), cap: 999)
            }
        }
    }
}
