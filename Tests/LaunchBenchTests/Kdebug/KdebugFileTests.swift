import Foundation
import LaunchBench
import Testing

extension KdebugTests {
    @Suite("Kdebug capture files")
    struct KdebugFileTests {
        @Test func readsAWholeFile() throws {
            let (trace, compressed) = try KdebugFile.read(KdebugFixtures.bytes("synth-launch.kdebug"))
            #expect(!compressed)
            #expect(trace.header?.threads.map(\.processName) == ["launchd", "Demo"])
            #expect(trace.records.count == (6976 - 4096) / 64)
        }

        /// Each fault is refused with the offset at fault, never read as a shorter trace.
        @Test func namesTheOffsetOfEachFault() throws {
            let file = try KdebugFixtures.bytes("synth-launch.kdebug")
            #expect(throws: KdebugFileError.empty) { try KdebugFile.read([]) }
            #expect(throws: KdebugFileError.cutOff(offset: 100, needed: 288, part: "the header")) {
                try KdebugFile.read(Array(file.prefix(100)))
            }
            #expect(
                throws: KdebugFileError.cutOff(offset: 1000, needed: 4096, part: "the padding after the thread map")
            ) { try KdebugFile.read(Array(file.prefix(1000))) }
            var manyThreads = file
            manyThreads[4...7] = [0xE8, 0x03, 0, 0]  // 1000 threads: 288 + 32 000 bytes of map
            #expect(throws: KdebugFileError.threadCountBeyondFile(threads: 1000, mapEnd: 32288, size: 6976)) {
                try KdebugFile.read(manyThreads)
            }
            manyThreads[4...7] = [0xFF, 0xFF, 0xFF, 0xFF]
            #expect(
                throws: KdebugFileError.threadCountBeyondFile(threads: .max, mapEnd: 288 + 32 * 0xFFFF_FFFF, size: 6976)
            ) { try KdebugFile.read(manyThreads) }
            let cut = try KdebugFixtures.bytes("synth-launch-cut.kdebug")
            #expect(throws: KdebugFileError.partialRecord(recordsOffset: 4096, extra: 36, size: 4196)) {
                try KdebugFile.read(cut)
            }
            #expect(
                KdebugFileError.partialRecord(recordsOffset: 4096, extra: 36, size: 4196).errorDescription!
                    .contains("from offset 4160"))
            #expect(throws: KdebugFileError.notRawVersion2(firstBytes: "64 79 6c 64")) {
                try KdebugFile.read(Array("dyld: launch".utf8))
            }
        }

        /// The padding is skipped to the 4 KiB boundary even when it holds stale bytes, as kperf leaves it.
        @Test func skipsStalePadding() throws {
            var file = try KdebugFixtures.bytes("synth-launch.kdebug")
            file.replaceSubrange(1000..<1010, with: Array("trace.code".utf8))
            let trace = try KdebugFile.read(file).trace
            let clean = try KdebugFile.read(KdebugFixtures.bytes("synth-launch.kdebug")).trace
            #expect(trace.records == clean.records)
        }

        /// synth-launch-lz4.kdebug is synth-launch.kdebug as two chained bv41 blocks made by python-lz4 (the
        /// second compressed against the first, so its matches reach into the first block's output).
        @Test func decodesChainedAppleLZ4() throws {
            let original = try KdebugFixtures.bytes("synth-launch.kdebug")
            let stream = try KdebugFixtures.bytes("synth-launch-lz4.kdebug")
            #expect(try LZ4Block.decode(stream) == original)
            let (trace, compressed) = try KdebugFile.read(stream)
            #expect(compressed)
            #expect(trace.records == KdebugRecord.records(from: original[4096...]))
            // A block stored as it is, then the end.
            let stored = Array("bv4-".utf8) + [3, 0, 0, 0] + [7, 8, 9] + Array("bv4$".utf8)
            #expect(try LZ4Block.decode(stored) == [7, 8, 9])
        }

        @Test func refusesDamagedLZ4ByOffset() throws {
            let stream = try KdebugFixtures.bytes("synth-launch-lz4.kdebug")
            // The first block is 12 + 72 bytes; cut inside the second.
            #expect(throws: LZ4Block.DecodeError.truncated(offset: 84)) {
                try LZ4Block.decode(Array(stream.prefix(200)))
            }
            #expect(throws: KdebugFileError.lz4(offset: 84, reason: "the stream ends inside this block")) {
                try KdebugFile.read(Array(stream.prefix(200)))
            }
            var unknown = stream
            unknown[87] = UInt8(ascii: "x")  // bv4x
            #expect(throws: LZ4Block.DecodeError.unknownBlock(offset: 84)) { try LZ4Block.decode(unknown) }
            // The second block alone: its first match reaches into the missing first block.
            let alone = Array(stream[84...])
            #expect {
                try LZ4Block.decode(alone)
            } throws: { error in
                guard case .corrupt(let offset, _) = error as? LZ4Block.DecodeError else { return false }
                return offset >= 12
            }
        }

        /// A tap chunk in Apple LZ4 gives the records the plain chunk gives.
        @Test func chunkDecoderTakesLZ4Chunks() throws {
            var decoder = KdebugChunkDecoder()
            let records = try decoder.decode(chunk: KdebugFixtures.bytes("synth-launch-lz4.kdebug"))
            #expect(try records == KdebugFixtures.synth().records)
            #expect(decoder.header?.threads.count == 2)
        }
    }
}
