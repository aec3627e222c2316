import Foundation

/// One 64-byte kdebug event (`kd_buf` for LP64, xnu `bsd/sys/kdebug.h`), little-endian:
/// `u64 timestamp, u64 arg1…arg4, u64 arg5 (thread id), u32 debugid, u32 cpuid, u64 unused`.
package struct KdebugRecord: Hashable, Sendable {
    /// The size of one record in bytes.
    package static let size = 64

    /// When it happened, in mach ticks (`mach_absolute_time` unless the session asked for continuous time).
    package var timestamp: UInt64
    /// The first argument; for dyld intervals, the trace-pair id that ties a START to its END.
    package var arg1: UInt64
    /// The second argument.
    package var arg2: UInt64
    /// The third argument.
    package var arg3: UInt64
    /// The fourth argument.
    package var arg4: UInt64
    /// The thread that emitted it (`arg5` in xnu).
    package var threadID: UInt64
    /// What happened: class, subclass, code and function qualifier.
    package var debugID: KdebugDebugID
    /// The CPU it was recorded on.
    package var cpuID: UInt32

    /// A record from its fields.
    /// - Parameters:
    ///   - timestamp: mach ticks.
    ///   - debugID: the event and its function qualifier.
    ///   - args: arg1…arg4; missing ones are 0, extra ones are ignored.
    ///   - threadID: the emitting thread.
    ///   - cpuID: the CPU.
    package init(
        timestamp: UInt64, debugID: KdebugDebugID, args: [UInt64] = [], threadID: UInt64 = 0, cpuID: UInt32 = 0
    ) {
        self.timestamp = timestamp
        self.debugID = debugID
        let padded = args + Array(repeating: 0, count: max(0, 4 - args.count))
        arg1 = padded[0]
        arg2 = padded[1]
        arg3 = padded[2]
        arg4 = padded[3]
        self.threadID = threadID
        self.cpuID = cpuID
    }

    /// Decodes one record.
    /// - Parameter bytes: exactly 64 bytes (a slice is fine; its indices need not start at 0).
    /// - Returns: nil when `bytes` is not 64 bytes long.
    package init?<Bytes: Collection<UInt8>>(bytes: Bytes) {
        guard bytes.count == Self.size else { return nil }
        let array = [UInt8](bytes)
        func u64(_ offset: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in (0..<8).reversed() { value = value << 8 | UInt64(array[offset + index]) }
            return value
        }
        func u32(_ offset: Int) -> UInt32 { UInt32(truncatingIfNeeded: u64(offset)) }
        timestamp = u64(0)
        arg1 = u64(8)
        arg2 = u64(16)
        arg3 = u64(24)
        arg4 = u64(32)
        threadID = u64(40)
        debugID = KdebugDebugID(rawValue: u32(48))
        cpuID = u32(52)
    }

    /// Decodes one record from exactly 64 bytes of memory, without copying them.
    /// - Parameter raw: the record's bytes.
    package init(raw: UnsafeRawBufferPointer) {
        func u64(_ offset: Int) -> UInt64 {
            UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        timestamp = u64(0)
        arg1 = u64(8)
        arg2 = u64(16)
        arg3 = u64(24)
        arg4 = u64(32)
        threadID = u64(40)
        let word = u64(48)
        debugID = KdebugDebugID(rawValue: UInt32(truncatingIfNeeded: word))
        cpuID = UInt32(truncatingIfNeeded: word >> 32)
    }

    /// The 64 bytes of this record as a kd_buf (the unused tail is zero).
    package var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.size)
        for value in [timestamp, arg1, arg2, arg3, arg4, threadID] { out.append(littleEndian: value) }
        out.append(littleEndian: UInt64(debugID.rawValue) | UInt64(cpuID) << 32)
        out.append(littleEndian: UInt64(0))
        return out
    }

    /// arg1…arg4 as 32 little-endian bytes, the way string events carry text.
    package var argumentBytes: [UInt8] {
        var out: [UInt8] = []
        for value in [arg1, arg2, arg3, arg4] { out.append(littleEndian: value) }
        return out
    }

    /// Decodes consecutive records.
    /// - Parameter bytes: a whole number of records; a short remainder is ignored.
    /// - Returns: the records in order.
    package static func records<Bytes: Collection<UInt8>>(from bytes: Bytes) -> [KdebugRecord] {
        let array = [UInt8](bytes)
        return array.withUnsafeBytes { raw in
            stride(from: 0, to: array.count - array.count % size, by: size).map {
                KdebugRecord(raw: UnsafeRawBufferPointer(rebasing: raw[$0..<$0 + size]))
            }
        }
    }
}

extension [UInt8] {
    fileprivate mutating func append(littleEndian value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
