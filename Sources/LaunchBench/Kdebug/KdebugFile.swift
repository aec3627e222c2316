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
    /// The thread count at offset 4 is past ``KdebugFileReader/threadCap``.
    case tooManyThreads(threads: UInt32, cap: Int)

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
        case .tooManyThreads(let threads, let cap):
            return
                "the RAW_VERSION2 thread count at offset 4 says \(threads) threads, more than the \(cap) this reader "
                + "takes (a phone runs a few thousand): the header is damaged."
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

    /// Reads a whole file held in memory (a doctor capture, a test); `parse` streams files with ``KdebugFileReader``.
    /// - Parameter file: its bytes.
    /// - Returns: the trace and whether the file was LZ4-compressed.
    /// - Throws: `KdebugFileError` naming the offset at fault.
    package static func read(_ file: [UInt8]) throws -> (trace: KdebugTrace, compressed: Bool) {
        var reader = KdebugFileReader(size: file.count)
        var records: [KdebugRecord] = []
        try reader.feed(file[...]) { records.append($0) }
        let header = try reader.finish(record: { records.append($0) })
        return (KdebugTrace(header: header, records: records), reader.compressed)
    }
}

/// Reads a capture file as its bytes arrive, strictly (see ``KdebugFile``), handing on each record as it is
/// complete: memory holds the header, one LZ4 block and less than a record, whatever the file's size.
package struct KdebugFileReader {
    /// The most threads a header's map may list: a phone runs a few thousand; each costs memory here.
    package static let threadCap = 1 << 20

    /// The file's size when known up front (a thread map past it is refused at once; not for LZ4, whose decoded
    /// size is unknown).
    let size: Int?
    /// Whether the file is Apple LZ4, known once its first four bytes have come.
    package private(set) var compressed = false
    private var decided = false
    private var lz4: LZ4StreamDecoder?
    private var rawCount = 0
    /// The file's first bytes, held until four of them tell whether it is LZ4.
    private var firstRaw: [UInt8] = []
    /// Decoded bytes so far (the RAW_VERSION2 offsets count these).
    private var count = 0
    /// The header and thread map as they arrive, until the map is whole.
    private var head: [UInt8] = []
    private var magicChecked = false
    private var mapEnd: Int?
    private var threadCount: UInt32 = 0
    /// The decoded header, once its map is whole.
    package private(set) var header: KdebugHeader?
    private var recordsOffset: Int?
    /// The start of a record that the next bytes complete.
    private var partial: [UInt8] = []

    /// A reader at the file's start.
    /// - Parameter size: the file's size, when known.
    package init(size: Int? = nil) {
        self.size = size
    }

    /// Reads the file's next bytes.
    /// - Parameters:
    ///   - bytes: the next bytes as stored (compressed or not).
    ///   - header: takes the header once its thread map is whole, before the first record.
    ///   - record: takes each record, in file order.
    /// - Throws: `KdebugFileError` naming the offset at fault, or what `record` throws.
    package mutating func feed(
        _ bytes: ArraySlice<UInt8>, header: (KdebugHeader) -> Void = { _ in }, record: (KdebugRecord) throws -> Void
    ) throws {
        guard !bytes.isEmpty else { return }
        rawCount += bytes.count
        guard decided else {
            firstRaw += bytes
            guard firstRaw.count >= 4 else { return }
            return try decide(header: header, record: record)
        }
        try pass(bytes, header: header, record: record)
    }

    private mutating func decide(header: (KdebugHeader) -> Void, record: (KdebugRecord) throws -> Void) throws {
        decided = true
        compressed = LZ4Block.starts(firstRaw)
        if compressed { lz4 = LZ4StreamDecoder() }
        let held = firstRaw
        firstRaw = []
        try pass(held[...], header: header, record: record)
    }

    private mutating func pass(
        _ bytes: ArraySlice<UInt8>, header: (KdebugHeader) -> Void, record: (KdebugRecord) throws -> Void
    ) throws {
        guard var decoder = lz4 else { return try take(bytes, header: header, record: record) }
        defer { lz4 = decoder }
        do {
            try decoder.feed(bytes) { try take($0, header: header, record: record) }
        } catch let error as LZ4Block.DecodeError {
            let (offset, reason) = error.described
            throw KdebugFileError.lz4(offset: offset, reason: reason)
        }
    }

    /// Ends the file: checks that it ended where a whole capture ends.
    /// - Parameters:
    ///   - header: takes the header when the bytes held until now (a file shorter than four bytes) complete it.
    ///   - record: takes the records of those bytes.
    /// - Returns: the header.
    /// - Throws: `KdebugFileError` naming the offset at fault.
    package mutating func finish(
        header: (KdebugHeader) -> Void = { _ in }, record: (KdebugRecord) throws -> Void = { _ in }
    ) throws -> KdebugHeader {
        guard rawCount > 0 else { throw KdebugFileError.empty }
        if !decided { try decide(header: header, record: record) }
        if let lz4 {
            do {
                try lz4.finish()
            } catch let error as LZ4Block.DecodeError {
                let (offset, reason) = error.described
                throw KdebugFileError.lz4(offset: offset, reason: reason)
            }
        }
        if !magicChecked { try checkMagic() }
        guard count >= KdebugHeader.fixedSize else {
            throw KdebugFileError.cutOff(offset: count, needed: KdebugHeader.fixedSize, part: "the header")
        }
        guard let header = self.header, let recordsOffset else {
            throw KdebugFileError.threadCountBeyondFile(
                threads: threadCount, mapEnd: mapEnd ?? KdebugHeader.fixedSize, size: count)
        }
        guard recordsOffset <= count else {
            throw KdebugFileError.cutOff(offset: count, needed: recordsOffset, part: "the padding after the thread map")
        }
        guard partial.isEmpty else {
            throw KdebugFileError.partialRecord(recordsOffset: recordsOffset, extra: partial.count, size: count)
        }
        return header
    }

    /// Decoded bytes: the header and map first, then the padding, then records.
    private mutating func take(
        _ bytes: ArraySlice<UInt8>, header: (KdebugHeader) -> Void, record: (KdebugRecord) throws -> Void
    ) throws {
        var rest = bytes
        count += bytes.count
        while recordsOffset == nil {
            let target = mapEnd ?? KdebugHeader.fixedSize
            let taken = min(target - head.count, rest.count)
            head += rest.prefix(taken)
            rest = rest.dropFirst(taken)
            if !magicChecked, head.count >= 4 { try checkMagic() }
            guard head.count == target else { return }
            guard let mapEnd else {
                let (threads, end) = KdebugHeader.threadMap(head)
                threadCount = threads
                if let size, !compressed, end > size {
                    throw KdebugFileError.threadCountBeyondFile(threads: threads, mapEnd: end, size: size)
                }
                guard Int(threads) <= Self.threadCap else {
                    throw KdebugFileError.tooManyThreads(threads: threads, cap: Self.threadCap)
                }
                self.mapEnd = end
                continue
            }
            do {
                let decoded = try KdebugHeader.decode(head).header
                self.header = decoded
                header(decoded)
            } catch KdebugFormatError.not64Bit(let flags) {
                throw KdebugFileError.not64Bit(flags: flags)
            }
            head = []
            recordsOffset = (mapEnd + 0xFFF) & ~0xFFF
        }
        guard let recordsOffset else { return }
        let position = count - rest.count  // the decoded offset of `rest`'s first byte
        if position < recordsOffset { rest = rest.dropFirst(recordsOffset - position) }
        if !partial.isEmpty {
            let needed = KdebugRecord.size - partial.count
            partial += rest.prefix(needed)
            rest = rest.dropFirst(needed)
            guard partial.count == KdebugRecord.size else { return }
            try partial.withUnsafeBytes { try record(KdebugRecord(raw: $0)) }
            partial = []
        }
        let whole = rest.count - rest.count % KdebugRecord.size
        try rest.withUnsafeBytes { raw in
            for offset in stride(from: 0, to: whole, by: KdebugRecord.size) {
                try record(
                    KdebugRecord(raw: UnsafeRawBufferPointer(rebasing: raw[offset..<offset + KdebugRecord.size])))
            }
        }
        partial = Array(rest.dropFirst(whole))
    }

    /// Refuses a file whose (decoded) start is not the RAW_VERSION2 magic, as soon as four bytes tell.
    private mutating func checkMagic() throws {
        magicChecked = true
        guard KdebugHeader.starts(head) else {
            let text = head.prefix(4).map { String($0, radix: 16) }.joined(separator: " ")
            throw KdebugFileError.notRawVersion2(firstBytes: compressed ? "(decoded) " + text : text)
        }
    }
}

/// The launches of a capture file read piece by piece: ``KdebugFileReader`` → ``KdebugRecordOrder`` →
/// ``KdebugLaunchFinder``, so memory does not grow with the file, only with the launches found.
package struct KdebugFileLaunches {
    /// The launches in start order.
    package var launches: [KdebugLaunch]
    /// Whether the file was Apple LZ4.
    package var compressed: Bool
    /// What the reader assumed or left out, in words (the timebase, late records, launches cut).
    package var notes: [String]

    /// Reads a file.
    /// - Parameters:
    ///   - size: the file's size, when known.
    ///   - next: the file's next bytes; nil or empty at its end.
    /// - Throws: `KdebugFileError` naming the offset at fault, or what `next` throws.
    package init(size: Int?, next: () throws -> ArraySlice<UInt8>?) throws {
        var reader = KdebugFileReader(size: size)
        var order = KdebugRecordOrder()
        var finder: KdebugLaunchFinder?
        var timebaseNote: String?
        func start(_ header: KdebugHeader?) -> KdebugLaunchFinder {
            let (timebase, note) = KdebugFile.timebase(of: header)
            timebaseNote = note
            return KdebugLaunchFinder(threads: header?.threads ?? [], timebase: timebase)
        }
        let take = { (record: KdebugRecord) in order.push(record) { finder!.consume($0) } }
        let begin = { (header: KdebugHeader) in finder = start(header) }
        while let piece = try next(), !piece.isEmpty {
            try reader.feed(piece, header: begin, record: take)
        }
        let header = try reader.finish(header: begin, record: take)
        if finder == nil { finder = start(header) }
        order.flush { finder!.consume($0) }
        let found = finder!.finish()
        launches = found.launches
        compressed = reader.compressed
        notes = [timebaseNote].compactMap { $0 }
        if order.late > 0 {
            notes.append(
                "\(order.late) record(s) came more than \(KdebugRecordOrder.window) records after their time and "
                    + "were read where they came")
        }
        notes += found.notes
    }
}
