/// Apple's `COMPRESSION_LZ4` stream (libcompression), which some phones use for DTX payloads: blocks
/// `bv41` (u32 decoded size, u32 encoded size, then one LZ4 block), `bv4-` (u32 size, then the bytes stored
/// as they are), ended by `bv4$`. A block's matches may reach back into earlier blocks' output (chained), at
/// most 65,535 bytes (the offset is 16 bits), so a stream is decoded piece by piece keeping only that much of
/// what came before (`LZ4StreamDecoder`).
package enum LZ4Block {
    /// The magic of a compressed block.
    static let compressedMagic: [UInt8] = Array("bv41".utf8)
    /// The magic of a stored (uncompressed) block.
    static let storedMagic: [UInt8] = Array("bv4-".utf8)
    /// The magic that ends the stream.
    static let endMagic: [UInt8] = Array("bv4$".utf8)

    /// The most one stream may decode to: 256 MiB. A DTX payload a phone compresses is a few MB; LZ4 reaches
    /// 255:1, so without a cap a 4.5 MB file decodes to 1 GiB. Past it the block is refused by its offset.
    package static let decodedCap = 256 << 20

    /// Whether `bytes` starts with a compressed or stored block.
    /// - Parameter bytes: a payload.
    /// - Returns: true for Apple's LZ4 stream.
    package static func starts<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        bytes.starts(with: compressedMagic) || bytes.starts(with: storedMagic)
    }

    /// What makes a stream undecodable; `offset` counts from the stream's first byte.
    package enum DecodeError: Error, Sendable, Equatable {
        /// A block header is neither `bv41`, `bv4-` nor `bv4$`.
        case unknownBlock(offset: Int)
        /// The stream ends inside a block (its header or its bytes).
        case truncated(offset: Int)
        /// A match reaches before the start of the output, or a block decodes to another size than its header says.
        case corrupt(offset: Int, reason: String)
        /// The block at `offset` would take the stream's output past `cap` bytes (its header declares
        /// `declared` bytes more after `decoded`).
        case tooLarge(offset: Int, decoded: Int, declared: Int, cap: Int)

        /// The offset at fault and why, in words.
        package var described: (offset: Int, reason: String) {
            switch self {
            case .unknownBlock(let offset): return (offset, "the block header is not bv41, bv4- or bv4$")
            case .truncated(let offset): return (offset, "the stream ends inside this block")
            case .corrupt(let offset, let reason): return (offset, reason)
            case .tooLarge(let offset, let decoded, let declared, let cap):
                return (
                    offset,
                    "after \(decoded) decoded bytes this block declares \(declared) more, past the \(cap >> 20) MiB "
                        + "an LZ4 stream may decode to (a phone's compressed payloads are a few MB); the file is "
                        + "damaged or not a capture"
                )
            }
        }
    }

    /// Decodes a whole stream. A stream whose bytes end right after a block without `bv4$` is accepted (DTX
    /// chunks are sometimes cut there); anything after `bv4$` is ignored.
    /// - Parameters:
    ///   - stream: the bytes, starting with a block header.
    ///   - cap: the most it may decode to.
    /// - Returns: the decoded bytes.
    /// - Throws: `DecodeError` naming the offset of the fault.
    package static func decode(_ stream: [UInt8], cap: Int = decodedCap) throws -> [UInt8] {
        var decoder = LZ4StreamDecoder(cap: cap)
        var output: [UInt8] = []
        try decoder.feed(stream[...]) { output += $0 }
        try decoder.finish()
        return output
    }
}

/// Decodes Apple's LZ4 stream as its bytes arrive, keeping the last 64 KiB of output (what a match may reach)
/// and the input of one block at most: memory does not grow with the stream.
package struct LZ4StreamDecoder: Sendable {
    /// How far back a match may reach.
    static let history = 65_535
    /// The most the stream may decode to.
    package let cap: Int
    /// Input not yet a whole block, from stream offset `pendingOffset`.
    private var pending: [UInt8] = []
    private var pendingOffset = 0
    /// The last ``history`` bytes of output (or more, trimmed now and then).
    private var window: [UInt8] = []
    /// Bytes decoded so far.
    package private(set) var decoded = 0
    /// Whether `bv4$` was read: later bytes are ignored.
    package private(set) var ended = false

    /// A decoder at the start of a stream.
    /// - Parameter cap: the most the stream may decode to.
    package init(cap: Int = LZ4Block.decodedCap) {
        self.cap = cap
    }

    /// Decodes what `bytes` completes; hands each block's output to `emit` in order.
    /// - Parameters:
    ///   - bytes: the stream's next bytes.
    ///   - emit: takes each decoded block's bytes.
    /// - Throws: `LZ4Block.DecodeError` naming the stream offset at fault, or what `emit` throws.
    package mutating func feed(_ bytes: ArraySlice<UInt8>, emit: (ArraySlice<UInt8>) throws -> Void) throws {
        guard !ended else { return }
        pending += bytes
        var start = 0
        defer {
            pending.removeFirst(start)
            pendingOffset += start
        }
        while let used = try block(at: start, emit: emit) {
            start += used
            if ended { return }
        }
    }

    /// Ends the stream: the bytes must end on a block boundary (with or without `bv4$`).
    /// - Throws: `LZ4Block.DecodeError.truncated` at the block the stream ends inside.
    package func finish() throws {
        guard !ended, !pending.isEmpty else { return }
        throw LZ4Block.DecodeError.truncated(offset: pendingOffset)
    }

    /// Decodes the block at `start` in `pending` when it is whole; returns the bytes it took, nil when more are needed.
    private mutating func block(at start: Int, emit: (ArraySlice<UInt8>) throws -> Void) throws -> Int? {
        let offset = pendingOffset + start
        let available = pending.count - start
        guard available >= 4 else { return nil }
        let magic = pending[start..<start + 4]
        if magic.elementsEqual(LZ4Block.endMagic) {
            ended = true
            return 4
        }
        func u32(_ at: Int) -> Int { (0..<4).reversed().reduce(0) { $0 << 8 | Int(pending[start + at + $1]) } }
        if magic.elementsEqual(LZ4Block.storedMagic) {
            guard available >= 8 else { return nil }
            let size = u32(4)
            try admit(size, at: offset)
            guard available >= 8 + size else { return nil }
            let before = window.count
            window += pending[start + 8..<start + 8 + size]
            try finishBlock(from: before, emit: emit)
            return 8 + size
        }
        guard magic.elementsEqual(LZ4Block.compressedMagic) else {
            throw LZ4Block.DecodeError.unknownBlock(offset: offset)
        }
        guard available >= 12 else { return nil }
        let decodedSize = u32(4)
        let encodedSize = u32(8)
        try admit(decodedSize, at: offset)
        // LZ4's worst case for n bytes is n + n/255 + 16 (`LZ4_COMPRESSBOUND`, lz4.h): a larger block is not LZ4.
        guard encodedSize <= decodedSize + decodedSize / 255 + 16 else {
            throw LZ4Block.DecodeError.corrupt(
                offset: offset,
                reason: "the block's \(encodedSize) encoded bytes are more than \(decodedSize) bytes can encode to")
        }
        guard available >= 12 + encodedSize else { return nil }
        let before = window.count
        try decodeBlock(
            from: start + 12, to: start + 12 + encodedSize, limit: before + decodedSize, streamOffset: pendingOffset)
        guard window.count - before == decodedSize else {
            throw LZ4Block.DecodeError.corrupt(
                offset: offset,
                reason: "the block decodes to \(window.count - before) bytes, its header says \(decodedSize)")
        }
        try finishBlock(from: before, emit: emit)
        return 12 + encodedSize
    }

    /// Refuses a block that would take the output past the cap, before decoding it.
    private func admit(_ declared: Int, at offset: Int) throws {
        guard decoded + declared <= cap else {
            throw LZ4Block.DecodeError.tooLarge(offset: offset, decoded: decoded, declared: declared, cap: cap)
        }
    }

    private mutating func finishBlock(from before: Int, emit: (ArraySlice<UInt8>) throws -> Void) throws {
        decoded += window.count - before
        try emit(window[before...])
        if window.count > 4 * Self.history { window.removeFirst(window.count - Self.history) }
    }

    /// One LZ4 block (lz4 `lz4_Block_format.md`): sequences of a token (literal length, match length − 4),
    /// literals, a 2-byte little-endian match offset; the last sequence has literals only. Never writes past
    /// `limit` (the block's declared end in `window`).
    private mutating func decodeBlock(from start: Int, to end: Int, limit: Int, streamOffset: Int) throws {
        var index = start
        func length(_ nibble: Int) throws -> Int {
            var total = nibble
            guard nibble == 15 else { return total }
            while true {
                guard index < end else { throw LZ4Block.DecodeError.truncated(offset: streamOffset + index) }
                let byte = Int(pending[index])
                index += 1
                total += byte
                if byte != 255 { return total }
            }
        }
        func overrun(_ at: Int) -> LZ4Block.DecodeError {
            .corrupt(offset: streamOffset + at, reason: "the block decodes to more bytes than its header says")
        }
        while index < end {
            let token = Int(pending[index])
            index += 1
            let literals = try length(token >> 4)
            guard index + literals <= end else { throw LZ4Block.DecodeError.truncated(offset: streamOffset + index) }
            guard window.count + literals <= limit else { throw overrun(index) }
            window += pending[index..<index + literals]
            index += literals
            if index == end { return }  // the last sequence
            guard index + 2 <= end else { throw LZ4Block.DecodeError.truncated(offset: streamOffset + index) }
            let distance = Int(pending[index]) | Int(pending[index + 1]) << 8
            let matchAt = index
            index += 2
            let matchLength = try length(token & 0xF) + 4
            // The window is all the output until it is first trimmed, and never less than `history` after.
            guard distance > 0, distance <= window.count else {
                throw LZ4Block.DecodeError.corrupt(
                    offset: streamOffset + matchAt,
                    reason: "a match reaches \(distance) bytes back with only \(window.count) decoded")
            }
            guard window.count + matchLength <= limit else { throw overrun(matchAt) }
            // A match may overlap the bytes it produces (distance < length repeats them): copy what is already
            // there, which doubles with each copy.
            let from = window.count - distance
            var copied = 0
            while copied < matchLength {
                let chunk = min(matchLength - copied, window.count - (from + copied))
                // Copied out first: appending a slice of the array itself would copy the whole window.
                let piece = Array(window[from + copied..<from + copied + chunk])
                window.append(contentsOf: piece)
                copied += chunk
            }
        }
    }
}
