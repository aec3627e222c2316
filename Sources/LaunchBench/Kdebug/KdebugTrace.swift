import Foundation

/// A kdebug byte stream that cannot be read.
package enum KdebugFormatError: Error, Sendable, Equatable, LocalizedError {
    /// A RAW_VERSION2 header chunk is shorter than its header and thread map say (`needed` bytes, got `count`).
    case truncatedHeader(needed: Int, count: Int)
    /// The header's flags lack `KDBG_LP64`: records are 32-bit, which only 32-bit devices write.
    case not64Bit(flags: UInt32)
    /// A chunk in Apple's LZ4 (`bv41`) could not be decoded; the reason names the offset in the chunk.
    case undecodableLZ4(String)

    /// What is wrong and what to do.
    package var errorDescription: String? {
        switch self {
        case .truncatedHeader(let needed, let count):
            return "The kdebug RAW_VERSION2 header needs \(needed) bytes but the chunk holds \(count); "
                + "pass the whole header chunk as the device sent it."
        case .not64Bit(let flags):
            return "The kdebug header flags 0x\(String(flags, radix: 16)) lack KDBG_LP64 (0x1): 32-bit records "
                + "are not supported; record the trace from a 64-bit device."
        case .undecodableLZ4(let reason):
            return "A kdebug chunk compressed with Apple's LZ4 (bv41) cannot be decoded (\(reason)); the device "
                + "sent damaged data: record the trace again."
        }
    }
}

/// A thread known when tracing started (one `kd_threadmap` entry: u64 tid, u32 pid, char[20] name).
package struct KdebugThread: Hashable, Sendable {
    /// The thread id.
    package var threadID: UInt64
    /// Its process.
    package var pid: Int
    /// The process name, at most 19 bytes, cut at the first NUL.
    package var processName: String

    /// A thread map entry.
    /// - Parameters:
    ///   - threadID: the thread id.
    ///   - pid: its process.
    ///   - processName: the process name.
    package init(threadID: UInt64, pid: Int, processName: String) {
        self.threadID = threadID
        self.pid = pid
        self.processName = processName
    }
}

/// The RAW_VERSION2 header (`00 02 aa 55`, then `kd_header_v2`, 284 bytes: u32 thread count, u64 seconds,
/// u32 microseconds, u32 flags, u64 tick frequency, 256 unused; then the thread map, 32 bytes per thread;
/// then zeros to the next 4 KiB boundary from the chunk's start).
package struct KdebugHeader: Hashable, Sendable {
    /// The magic at the start of a RAW_VERSION2 chunk.
    package static let rawVersion2Magic: [UInt8] = [0x00, 0x02, 0xAA, 0x55]
    /// The bytes before the thread map: magic (4) and `kd_header_v2` (284).
    static let fixedSize = 4 + 284

    /// Wall-clock seconds when tracing started.
    package var seconds: UInt64
    /// Wall-clock microseconds.
    package var microseconds: UInt32
    /// `KDBG_LP64` = 1 and friends.
    package var flags: UInt32
    /// Ticks per second.
    package var tickFrequency: UInt64
    /// Threads that existed when tracing started.
    package var threads: [KdebugThread]

    /// A header from its fields.
    /// - Parameters:
    ///   - seconds: wall-clock seconds.
    ///   - microseconds: wall-clock microseconds.
    ///   - flags: header flags (1 = LP64).
    ///   - tickFrequency: ticks per second.
    ///   - threads: the thread map.
    package init(seconds: UInt64, microseconds: UInt32, flags: UInt32, tickFrequency: UInt64, threads: [KdebugThread]) {
        self.seconds = seconds
        self.microseconds = microseconds
        self.flags = flags
        self.tickFrequency = tickFrequency
        self.threads = threads
    }

    /// Whether `bytes` starts with the RAW_VERSION2 magic.
    /// - Parameter bytes: a chunk.
    /// - Returns: true for a header chunk.
    package static func starts<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        bytes.starts(with: rawVersion2Magic)
    }

    /// The thread count at offset 4 of a header of at least ``fixedSize`` bytes, and where its thread map ends
    /// (32 bytes a thread after the fixed part).
    static func threadMap(_ bytes: [UInt8]) -> (threads: UInt32, end: Int) {
        let threads = (0..<4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[4 + $1]) }
        return (threads, fixedSize + Int(threads) * 32)
    }

    /// Decodes a header chunk.
    ///
    /// Records start after the zero padding to the 4 KiB boundary, as xnu writes it and pymobiledevice3's tap
    /// delivers it. When the bytes in that stretch are not all zero, the chunk has no padding and records start
    /// right after the thread map (pykdebugparser's own test streams are written so).
    /// - Parameter bytes: the chunk, starting with the magic.
    /// - Returns: the header and the offset of the first record in `bytes`.
    /// - Throws: `KdebugFormatError` when the chunk is shorter than the header or the records are not 64-bit.
    package static func decode(_ bytes: [UInt8]) throws -> (header: KdebugHeader, recordsOffset: Int) {
        guard bytes.count >= fixedSize else {
            throw KdebugFormatError.truncatedHeader(needed: fixedSize, count: bytes.count)
        }
        func u64(_ offset: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in (0..<8).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
            return value
        }
        func u32(_ offset: Int) -> UInt32 {
            (0..<4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[offset + $1]) }
        }
        let (threadCount, mapEnd) = threadMap(bytes)
        guard bytes.count >= mapEnd else {
            throw KdebugFormatError.truncatedHeader(needed: mapEnd, count: bytes.count)
        }
        let flags = u32(20)
        guard flags & 1 == 1 else { throw KdebugFormatError.not64Bit(flags: flags) }
        let threads = (0..<Int(threadCount)).map { index -> KdebugThread in
            let entry = fixedSize + index * 32
            let name = bytes[(entry + 12)..<(entry + 32)].prefix { $0 != 0 }
            return KdebugThread(
                threadID: u64(entry), pid: Int(Int32(bitPattern: u32(entry + 8))),
                processName: String(decoding: name, as: UTF8.self))
        }
        let header = KdebugHeader(
            seconds: u64(8), microseconds: u32(16), flags: flags, tickFrequency: u64(24), threads: threads)
        let padded = (mapEnd + 0xFFF) & ~0xFFF
        let padding = bytes[mapEnd..<min(padded, bytes.count)]
        return (header, padding.allSatisfy { $0 == 0 } ? min(padded, bytes.count) : mapEnd)
    }
}

/// Reads the chunks a DVT `coreprofilesessiontap` sends, in order, into records.
///
/// What pymobiledevice3 11.45's tap delivers: bplist notices and KCDATA stackshots (skipped), one RAW_VERSION2
/// header chunk (possibly followed by records), then chunks of whole 64-byte records. A record never spans two
/// chunks, so a short remainder is dropped and counted, as pymobiledevice3 does.
package struct KdebugChunkDecoder: Sendable {
    /// The RAW_VERSION2 header, once its chunk has arrived.
    package private(set) var header: KdebugHeader?
    /// Bytes dropped because a chunk did not end on a record boundary.
    package private(set) var droppedBytes = 0
    /// bplist and stackshot chunks skipped.
    package private(set) var skippedChunks = 0
    private var started = false

    /// The first four bytes of a KCDATA stackshot (`KCDATA_BUFFER_BEGIN_STACKSHOT` 0x59A25807, little-endian).
    package static let stackshotMagic: [UInt8] = [0x07, 0x58, 0xA2, 0x59]

    /// A decoder that has seen nothing.
    package init() {}

    /// Decodes the next chunk.
    /// - Parameter chunk: one DATA message's payload; Apple LZ4 (`bv41` blocks, as some phones send) is
    ///   decoded first.
    /// - Returns: the records it holds, in order.
    /// - Throws: `KdebugFormatError` when a header chunk is malformed or an LZ4 payload cannot be decoded.
    package mutating func decode<Bytes: Collection<UInt8>>(chunk: Bytes) throws -> [KdebugRecord] {
        var bytes = [UInt8](chunk)
        if LZ4Block.starts(bytes) {
            do {
                bytes = try LZ4Block.decode(bytes)
            } catch {
                throw KdebugFormatError.undecodableLZ4(String(describing: error))
            }
        }
        if bytes.starts(with: Array("bplist".utf8)) || bytes.starts(with: Self.stackshotMagic) {
            skippedChunks += 1
            return []
        }
        var offset = 0
        if !started, KdebugHeader.starts(bytes) {
            let decoded = try KdebugHeader.decode(bytes)
            header = decoded.header
            offset = decoded.recordsOffset
        }
        started = true
        let body = bytes[offset...]
        droppedBytes += body.count % KdebugRecord.size
        return KdebugRecord.records(from: body)
    }
}

/// A whole kdebug trace held in memory: an optional RAW_VERSION2 header, then records.
package struct KdebugTrace: Sendable {
    /// The header, when the bytes started with one.
    package var header: KdebugHeader?
    /// Every record, in stream order.
    package var records: [KdebugRecord]
    /// Bytes at the end that did not make a whole record.
    package var droppedBytes: Int

    /// A trace from its parts.
    /// - Parameters:
    ///   - header: the RAW_VERSION2 header, if any.
    ///   - records: the records in stream order.
    ///   - droppedBytes: bytes that did not make a whole record.
    package init(header: KdebugHeader?, records: [KdebugRecord], droppedBytes: Int = 0) {
        self.header = header
        self.records = records
        self.droppedBytes = droppedBytes
    }

    /// Decodes a trace, such as a header chunk followed by record chunks, concatenated.
    /// - Parameter data: the bytes.
    /// - Throws: `KdebugFormatError` when the header is malformed.
    package init<Bytes: Collection<UInt8>>(bytes data: Bytes) throws {
        var decoder = KdebugChunkDecoder()
        records = try decoder.decode(chunk: data)
        header = decoder.header
        droppedBytes = decoder.droppedBytes
    }
}
