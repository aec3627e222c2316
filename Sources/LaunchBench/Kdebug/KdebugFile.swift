import Foundation

/// A kdebug capture file that cannot be read; every case names the byte offset at fault.
package enum KdebugFileError: Error, Sendable, Equatable, LocalizedError {
    /// The file holds no bytes.
    case empty
    /// The file ends at `offset` inside the header, its thread map or the padding after them, which run to `needed`.
    case cutOff(offset: Int, needed: Int, part: String)
    /// The thread count at offset 4 would put the thread map's end at `mapEnd`, beyond the file's `size` bytes.
    case threadCountBeyondFile(threads: UInt32, mapEnd: Int, size: Int)
    /// The records from `recordsOffset` do not fill whole 64-byte records: `extra` bytes are left at the end.
    case partialRecord(recordsOffset: Int, extra: Int, size: Int)
    /// The header's flags lack `KDBG_LP64`.
    case not64Bit(flags: UInt32)
    /// Apple's LZ4 stream (`bv41`) cannot be decoded at `offset`.
    case lz4(offset: Int, reason: String)
    /// The file starts with neither the RAW_VERSION2 magic nor an LZ4 block.
    case notRawVersion2(firstBytes: String)

    /// What is wrong, where, and what to do.
    package var errorDescription: String? {
        switch self {
        case .empty:
            return "the kdebug file is empty (0 bytes); capture the trace again."
        case .cutOff(let offset, let needed, let part):
            return "the kdebug file is cut off at offset \(offset), inside \(part) (which runs to offset \(needed)); "
                + "copy the whole file again."
        case .threadCountBeyondFile(let threads, let mapEnd, let size):
            return "the RAW_VERSION2 thread count at offset 4 says \(threads) threads, whose map would end at offset "
                + "\(mapEnd), beyond the file's \(size) bytes: the header is damaged or the file is cut off."
        case .partialRecord(let recordsOffset, let extra, let size):
            return "the kdebug records from offset \(recordsOffset) are not a multiple of 64 bytes: the last \(extra) "
                + "bytes (from offset \(size - extra)) are a partial record; the file is cut off or damaged."
        case .not64Bit(let flags):
            return "the RAW_VERSION2 flags at offset 20 (0x\(String(flags, radix: 16))) lack KDBG_LP64: 32-bit "
                + "records are not supported; record the trace from a 64-bit device."
        case .lz4(let offset, let reason):
            return "the LZ4-compressed (bv41) kdebug data cannot be decoded at offset \(offset): \(reason)."
        case .notRawVersion2(let firstBytes):
            return "not a RAW_VERSION2 kdebug file: it starts with \(firstBytes), not 00 02 aa 55 (nor an LZ4 bv41 "
                + "block)."
        }
    }
}

/// A whole RAW_VERSION2 capture file, read strictly: as xnu's kperf writes it (`kperf_buffer_readdata`) and a
/// DVT core profile session sends it, the header and thread map are padded to a 4 KiB boundary whatever the
/// padding holds (it may be stale memory), then whole 64-byte records follow. A file that is Apple LZ4
/// (`bv41` blocks, as some phones compress DTX payloads) is decoded first.
package enum KdebugFile {
    /// Whether `bytes` look like a file this reader takes (by their magic).
    /// - Parameter bytes: the file's first bytes.
    /// - Returns: true for RAW_VERSION2 or Apple LZ4.
    package static func recognizes<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        KdebugHeader.starts(bytes) || LZ4Block.starts(bytes)
    }

    /// The timebase to read a file's ticks with: the header's `tick_frequency` when it gives one, else
    /// arm64's 24 MHz (125/3), which every arm64 iPhone uses, with a note saying so.
    /// - Parameter header: the file's header.
    /// - Returns: the timebase and, when it was assumed, why.
    package static func timebase(of header: KdebugHeader?) -> (timebase: MachTimebase, note: String?) {
        if let frequency = header?.tickFrequency, let timebase = MachTimebase(tickFrequency: frequency) {
            return (timebase, nil)
        }
        return (
            .iPhone,
            "the header gives no tick frequency: times assume arm64's 24 MHz mach clock (125/3 ns per tick)"
        )
    }

    /// Reads a whole file.
    /// - Parameter file: its bytes.
    /// - Returns: the trace and whether the file was LZ4-compressed.
    /// - Throws: `KdebugFileError` naming the offset at fault.
    package static func read(_ file: [UInt8]) throws -> (trace: KdebugTrace, compressed: Bool) {
        guard !file.isEmpty else { throw KdebugFileError.empty }
        var bytes = file
        let compressed = LZ4Block.starts(file)
        if compressed {
            do {
                bytes = try LZ4Block.decode(file)
            } catch let error as LZ4Block.DecodeError {
                switch error {
                case .unknownBlock(let offset):
                    throw KdebugFileError.lz4(offset: offset, reason: "the block header is not bv41, bv4- or bv4$")
                case .truncated(let offset):
                    throw KdebugFileError.lz4(offset: offset, reason: "the stream ends inside this block")
                case .corrupt(let offset, let reason):
                    throw KdebugFileError.lz4(offset: offset, reason: reason)
                }
            }
        }
        guard KdebugHeader.starts(bytes) else {
            let shown = bytes.prefix(4).map { String($0, radix: 16) }.joined(separator: " ")
            throw KdebugFileError.notRawVersion2(firstBytes: compressed ? "(decoded) " + shown : shown)
        }
        guard bytes.count >= KdebugHeader.fixedSize else {
            throw KdebugFileError.cutOff(offset: bytes.count, needed: KdebugHeader.fixedSize, part: "the header")
        }
        let (threads, mapEnd) = KdebugHeader.threadMap(bytes)
        guard mapEnd <= bytes.count else {
            throw KdebugFileError.threadCountBeyondFile(threads: threads, mapEnd: mapEnd, size: bytes.count)
        }
        let recordsOffset = (mapEnd + 0xFFF) & ~0xFFF
        guard recordsOffset <= bytes.count else {
            throw KdebugFileError.cutOff(
                offset: bytes.count, needed: recordsOffset, part: "the padding after the thread map")
        }
        let extra = (bytes.count - recordsOffset) % KdebugRecord.size
        guard extra == 0 else {
            throw KdebugFileError.partialRecord(recordsOffset: recordsOffset, extra: extra, size: bytes.count)
        }
        let header: KdebugHeader
        do {
            header = try KdebugHeader.decode(Array(bytes[..<mapEnd])).header
        } catch KdebugFormatError.not64Bit(let flags) {
            throw KdebugFileError.not64Bit(flags: flags)
        }
        let records = KdebugRecord.records(from: bytes[recordsOffset...])
        return (KdebugTrace(header: header, records: records), compressed)
    }
}
