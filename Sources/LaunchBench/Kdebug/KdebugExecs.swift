/// The execs in a trace as the kernel's class-7 events tell them, with the thread → pid map they keep up to
/// date: `TRACE_DATA_NEWTHREAD` (sent by the parent: arg1 = the thread, arg2 = its pid), `TRACE_DATA_EXEC`
/// (arg1 = the pid, on the exec'ing thread) and the `TRACE_STRING_EXEC` after it on that thread, which names
/// the exec (xnu-11417.101.15 `bsd/kern/kern_exec.c:2301`/`:2306`). The header's thread map seeds the pids.
struct KdebugExecs {
    /// Thread → pid.
    private(set) var pids: [UInt64: Int] = [:]
    /// Every `TRACE_DATA_EXEC`, in stream order.
    private(set) var execs: [KdebugRecord] = []
    /// The name each exec ran under, by its index in `execs`: the first non-empty `TRACE_STRING_EXEC` on its
    /// thread after it (exec cuts it to 31 bytes or fewer).
    private(set) var names: [Int: String] = [:]
    /// Each thread's newest exec, by its index in `execs`.
    private(set) var latestExec: [UInt64: Int] = [:]

    init(threads: [KdebugThread]) {
        for thread in threads { pids[thread.threadID] = thread.pid }
    }

    /// Reads `record`; returns the exec's name when it is a `TRACE_STRING_EXEC` that names one.
    @discardableResult
    mutating func consume(_ record: KdebugRecord) -> String? {
        switch record.debugID.eventID {
        case .traceDataNewThread:
            pids[record.arg1] = Int(truncatingIfNeeded: record.arg2)
        case .traceDataExec:
            pids[record.threadID] = Int(truncatingIfNeeded: record.arg1)
            latestExec[record.threadID] = execs.count
            execs.append(record)
        case .traceStringExec:
            guard let name = Self.name(in: record), let exec = latestExec[record.threadID], names[exec] == nil
            else { return nil }
            names[exec] = name
            return name
        default:
            break
        }
        return nil
    }

    /// The name a `TRACE_STRING_EXEC` carries (its arguments' bytes up to the first NUL); nil for another
    /// event or an empty name.
    static func name(in record: KdebugRecord) -> String? {
        guard record.debugID.eventID == .traceStringExec else { return nil }
        let name = String(decoding: record.argumentBytes.prefix { $0 != 0 }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }
}
