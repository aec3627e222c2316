/// Apple's `COMPRESSION_LZ4` stream (libcompression), which some phones use for DTX payloads: blocks
/// `bv41` (u32 decoded size, u32 encoded size, then one LZ4 block), `bv4-` (u32 size, then the bytes stored
/// as they are), ended by `bv4$`. A block's matches may reach back into earlier blocks' output (chained),
/// so the blocks are decoded into one buffer.
package enum LZ4Block {
    /// The magic of a compressed block.
    static let compressedMagic: [UInt8] = Array("bv41".utf8)
    /// The magic of a stored (uncompressed) block.
    static let storedMagic: [UInt8] = Array("bv4-".utf8)
    /// The magic that ends the stream.
    static let endMagic: [UInt8] = Array("bv4$".utf8)

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
    }

    /// Decodes a whole stream. A stream whose bytes end right after a block without `bv4$` is accepted (DTX
    /// chunks are sometimes cut there); anything after `bv4$` is ignored.
    /// - Parameter stream: the bytes, starting with a block header.
    /// - Returns: the decoded bytes.
    /// - Throws: `DecodeError` naming the offset of the fault.
    package static func decode(_ stream: [UInt8]) throws -> [UInt8] {
        var output: [UInt8] = []
        var offset = 0
        while offset < stream.count {
            guard offset + 4 <= stream.count else { throw DecodeError.truncated(offset: offset) }
            let magic = Array(stream[offset..<offset + 4])
            if magic == endMagic { break }
            func u32(_ at: Int) throws -> Int {
                guard at + 4 <= stream.count else { throw DecodeError.truncated(offset: offset) }
                return (0..<4).reversed().reduce(0) { $0 << 8 | Int(stream[at + $1]) }
            }
            if magic == storedMagic {
                let size = try u32(offset + 4)
                let start = offset + 8
                guard start + size <= stream.count else { throw DecodeError.truncated(offset: offset) }
                output += stream[start..<start + size]
                offset = start + size
            } else if magic == compressedMagic {
                let decodedSize = try u32(offset + 4)
                let encodedSize = try u32(offset + 8)
                let start = offset + 12
                guard start + encodedSize <= stream.count else { throw DecodeError.truncated(offset: offset) }
                let before = output.count
                try decodeBlock(stream, from: start, to: start + encodedSize, into: &output)
                guard output.count - before == decodedSize else {
                    throw DecodeError.corrupt(
                        offset: offset,
                        reason: "the block decodes to \(output.count - before) bytes, its header says \(decodedSize)")
                }
                offset = start + encodedSize
            } else {
                throw DecodeError.unknownBlock(offset: offset)
            }
        }
        return output
    }

    /// One LZ4 block (lz4 `lz4_Block_format.md`): sequences of a token (literal length, match length − 4),
    /// literals, a 2-byte little-endian match offset; the last sequence has literals only.
    private static func decodeBlock(_ input: [UInt8], from start: Int, to end: Int, into output: inout [UInt8])
        throws
    {
        var index = start
        func length(_ nibble: Int) throws -> Int {
            var total = nibble
            guard nibble == 15 else { return total }
            while true {
                guard index < end else { throw DecodeError.truncated(offset: index) }
                let byte = Int(input[index])
                index += 1
                total += byte
                if byte != 255 { return total }
            }
        }
        while index < end {
            let token = Int(input[index])
            index += 1
            let literals = try length(token >> 4)
            guard index + literals <= end else { throw DecodeError.truncated(offset: index) }
            output += input[index..<index + literals]
            index += literals
            if index == end { return }  // the last sequence
            guard index + 2 <= end else { throw DecodeError.truncated(offset: index) }
            let distance = Int(input[index]) | Int(input[index + 1]) << 8
            let matchAt = index
            index += 2
            let matchLength = try length(token & 0xF) + 4
            guard distance > 0, distance <= output.count else {
                throw DecodeError.corrupt(
                    offset: matchAt,
                    reason: "a match reaches \(distance) bytes back with only \(output.count) decoded")
            }
            // Byte by byte: a match may overlap the bytes it produces (distance < length repeats them).
            var from = output.count - distance
            output.reserveCapacity(output.count + matchLength)
            for _ in 0..<matchLength {
                output.append(output[from])
                from += 1
            }
        }
    }
}
