/// Writes a RAW_VERSION2 file as kperf does (`kperf_buffer_readdata`): the magic, `kd_header_v2`, the thread
/// map, zeros to the 4 KiB boundary, then the records. pykdebugparser, `launchbench parse` and Apple's tools
/// built on kdebug read it; it is what a user attaches to a bug report.
package enum RawKdebugWriter {
    /// The file's bytes.
    /// - Parameters:
    ///   - header: the header the device sent (its thread map and tick frequency are kept); nil writes an
    ///     empty thread map and the tick frequency of `timebase`.
    ///   - records: the records, in stream order.
    ///   - timebase: the device's timebase, for a file without a device header.
    /// - Returns: 4 KiB (more with over 118 threads) plus 64 bytes per record.
    package static func bytes(header: KdebugHeader?, records: [KdebugRecord], timebase: MachTimebase) -> [UInt8] {
        let frequency = 1_000_000_000 * UInt64(timebase.denom) / UInt64(timebase.numer)
        let header =
            header ?? KdebugHeader(seconds: 0, microseconds: 0, flags: 1, tickFrequency: frequency, threads: [])
        var out = header.rawVersion2Chunk
        out.reserveCapacity(out.count + records.count * KdebugRecord.size)
        for record in records { out += record.bytes }
        return out
    }
}

extension KdebugHeader {
    /// The header as a session's first chunk and a file's start: the magic, `kd_header_v2` (flagged LP64),
    /// the thread map (names cut to 19 bytes), then zeros to the 4 KiB boundary.
    package var rawVersion2Chunk: [UInt8] {
        var out = Self.rawVersion2Magic
        out.append(littleEndian: UInt64(threads.count), bytes: 4)
        out.append(littleEndian: seconds, bytes: 8)
        out.append(littleEndian: UInt64(microseconds), bytes: 4)
        out.append(littleEndian: UInt64(flags | 1), bytes: 4)  // the records are LP64
        out.append(littleEndian: tickFrequency, bytes: 8)
        out += [UInt8](repeating: 0, count: 256)
        for thread in threads {
            out.append(littleEndian: thread.threadID, bytes: 8)
            out.append(littleEndian: UInt64(UInt32(truncatingIfNeeded: thread.pid)), bytes: 4)
            let name = Array(thread.processName.utf8.prefix(19))
            out += name + [UInt8](repeating: 0, count: 20 - name.count)
        }
        out += [UInt8](repeating: 0, count: (0x1000 - out.count % 0x1000) % 0x1000)
        return out
    }
}

extension [UInt8] {
    fileprivate mutating func append(littleEndian value: UInt64, bytes: Int) {
        for index in 0..<bytes { append(UInt8(truncatingIfNeeded: value >> UInt64(8 * index))) }
    }
}
