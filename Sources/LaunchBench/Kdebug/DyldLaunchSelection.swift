/// Which launch in a trace to measure.
package enum DyldLaunchSelection: Sendable, Equatable {
    /// The first process exec'd (`TRACE_DATA_EXEC`) whose thread then emits dyld timing events; without any
    /// exec, the first thread that starts `LAUNCH_EXECUTABLE`.
    case firstLaunch
    /// The process with this pid (the pid a launch request returned).
    case pid(Int)
    /// The process whose main thread has this id, for traces without class-7 (exec and thread) events.
    case mainThread(UInt64)
    /// The first exec (`TRACE_DATA_EXEC` + `TRACE_STRING_EXEC`) under this executable's name, whatever came
    /// before in the same pid: launchd's `xpcproxy` execs the app in its own process, so one pid has two execs
    /// and two dyld launches, each on its own thread id (a real capture shows it; xnu-11417.101.15
    /// `bsd/kern/kern_exec.c:2301`/`:2306` emit TRACE_DATA_EXEC and the name at every exec).
    case executable(String)

    /// Whether the name an exec recorded is `executable`'s: exec records it cut to 31 bytes or fewer, so a
    /// prefix of 15 bytes or more of a longer name matches.
    static func execName(_ name: String, matches executable: String) -> Bool {
        name == executable || (name.utf8.count >= 15 && executable.hasPrefix(name))
    }
}

/// Threads, pids and process names as the kernel's class-7 events and the header's thread map tell them.
struct ProcessMap {
    /// The execs and the thread → pid map.
    private var kernel: KdebugExecs
    /// Process names by pid: the thread map's, then each `TRACE_STRING_EXEC`'s.
    private(set) var names: [Int: String] = [:]

    var pids: [UInt64: Int] { kernel.pids }
    var execs: [KdebugRecord] { kernel.execs }

    struct Selected {
        var pid: Int?
        var mainThread: UInt64
        var exec: KdebugRecord?
        var threads: Set<UInt64>
    }

    init(threads: [KdebugThread]) {
        kernel = KdebugExecs(threads: threads)
        for thread in threads where !thread.processName.isEmpty { names[thread.pid] = thread.processName }
    }

    mutating func consume(_ record: KdebugRecord) {
        kernel.consume(record)
        if let name = KdebugExecs.name(in: record), let pid = kernel.pids[record.threadID] { names[pid] = name }
    }

    func select(_ selection: DyldLaunchSelection, records: [KdebugRecord]) -> Selected? {
        func isDyldTiming(_ record: KdebugRecord) -> Bool {
            record.debugID.eventClass == 31 && record.debugID.subclass == 7
        }
        func launchStarter() -> UInt64? {
            records.first {
                $0.debugID.eventID == .dyldLaunchExecutable && $0.debugID.function == .start
                    || $0.debugID.eventID == .dyldBootstrapStart
            }?.threadID
        }
        switch selection {
        case .executable(let executable):
            guard
                let index = execs.indices.first(where: {
                    kernel.names[$0].map { DyldLaunchSelection.execName($0, matches: executable) } ?? false
                })
            else { return nil }
            let exec = execs[index]
            let pid = Int(truncatingIfNeeded: exec.arg1)
            let threads = Set(pids.filter { $0.value == pid }.keys)
            return Selected(pid: pid, mainThread: exec.threadID, exec: exec, threads: threads.union([exec.threadID]))
        case .pid(let pid):
            // When launchd's xpcproxy exec'd first in this pid, this is its launch: `.executable` finds the app's.
            let exec = execs.first { Int(truncatingIfNeeded: $0.arg1) == pid }
            let threads = Set(pids.filter { $0.value == pid }.keys)
            let main =
                exec?.threadID
                ?? records.first { threads.contains($0.threadID) && isDyldTiming($0) }?.threadID
            guard let main else { return nil }
            return Selected(pid: pid, mainThread: main, exec: exec, threads: threads.union([main]))
        case .mainThread(let thread):
            let pid = pids[thread]
            let threads = pid.map { pid in Set(pids.filter { $0.value == pid }.keys) } ?? []
            let exec = execs.first { $0.threadID == thread }
            return Selected(pid: pid, mainThread: thread, exec: exec, threads: threads.union([thread]))
        case .firstLaunch:
            var lastDyldEvent: [UInt64: UInt64] = [:]
            for record in records where isDyldTiming(record) { lastDyldEvent[record.threadID] = record.timestamp }
            let exec =
                execs.first { exec in lastDyldEvent[exec.threadID].map { $0 >= exec.timestamp } ?? false }
                ?? execs.first
            if let exec {
                return select(.pid(Int(truncatingIfNeeded: exec.arg1)), records: records)
            }
            return launchStarter().flatMap { select(.mainThread($0), records: records) }
        }
    }
}
