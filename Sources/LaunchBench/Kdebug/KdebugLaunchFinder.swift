/// Finds the launches of a trace as its records stream by in time order (see ``KdebugLaunches``), holding only
/// what an open launch needs: from each exec on, its process's records (and the kernel's lost-event reports).
/// A launch is measured and its records let go at its first frame after main (`0x31CA0006` END): nothing after
/// it counts toward a launch (page-ins stop there; UIKit's phases end there). A launch without one is measured
/// when the trace ends. Memory is the launches found plus at most ``recordCap`` records held at once: past it,
/// the launch holding the most is measured where it stands, with a warning, or, not yet a launch, set aside.
package struct KdebugLaunchFinder {
    /// The most records held for open launches at once: 2,000,000 (112 MB).
    package static let recordCap = 2_000_000

    private struct Open {
        /// The exec's place in the kernel's list, or nil for a launch found by thread (no exec in the trace).
        var exec: Int?
        /// Where it goes among the launches: the exec's place, else the order threads started launches.
        var order: Int
        var pid: Int?
        var mainThread: UInt64
        var records: [KdebugRecord]
        /// Its thread emitted dyld timing events after its exec: it is a launch.
        var launches: Bool
        /// The first LAUNCH_EXECUTABLE END (main), once seen.
        var main: UInt64?
    }

    private let threads: [KdebugThread]
    private let timebase: MachTimebase
    private let cap: Int
    private var kernel: KdebugExecs
    /// The thread map's process names, for a launch whose exec goes unnamed.
    private var names: [Int: String] = [:]
    private var open: [Int: Open] = [:]
    /// How many open launches follow each pid (most records belong to none).
    private var followed: [Int: Int] = [:]
    private var nextKey = 0
    private var held = 0
    private var execLaunchSeen = false
    private var startedThreads: Set<UInt64> = []
    /// Measured launches with their order: exec place, else the thread launch's start.
    private var byExec: [(order: Int, launch: KdebugLaunch)] = []
    private var byThread: [(order: Int, launch: KdebugLaunch)] = []
    private var setAside = 0
    private var cut = 0

    /// A finder at the trace's start.
    /// - Parameters:
    ///   - threads: the header's thread map.
    ///   - timebase: the device's mach timebase.
    ///   - recordCap: the most records held for open launches at once.
    package init(threads: [KdebugThread], timebase: MachTimebase, recordCap: Int = recordCap) {
        self.threads = threads
        self.timebase = timebase
        cap = recordCap
        kernel = KdebugExecs(threads: threads)
        for thread in threads where !thread.processName.isEmpty { names[thread.pid] = thread.processName }
    }

    /// Takes the next record (in time order).
    package mutating func consume(_ record: KdebugRecord) {
        kernel.consume(record)
        let id = record.debugID
        let event = id.eventID
        if event == .traceDataExec {
            let pid = Int(truncatingIfNeeded: record.arg1)
            add(record, pid: pid)
            insert(
                Open(
                    exec: kernel.execs.count - 1, order: kernel.execs.count - 1, pid: pid, mainThread: record.threadID,
                    records: [record], launches: false))
        } else if event == .traceLostEvents {
            for key in open.keys { open[key]!.records.append(record) }
            held += open.count
        } else {
            let pid = kernel.pids[record.threadID]
            add(record, pid: pid)
            if event == .traceDataNewThread {
                let child = Int(truncatingIfNeeded: record.arg2)
                if pid != child { add(record, pid: child) }
            }
            if id.eventClass == 31, id.subclass == 7 { dyldTiming(record, pid: pid) }
        }
        if held > cap { relieve() }
    }

    private mutating func dyldTiming(_ record: KdebugRecord, pid: Int?) {
        if let exec = kernel.latestExec[record.threadID],
            let key = open.first(where: { $0.value.exec == exec })?.key, !open[key]!.launches
        {
            open[key]!.launches = true
            if !execLaunchSeen {
                // Launches by exec replace launches by thread.
                execLaunchSeen = true
                byThread = []
                for (key, value) in open where value.exec == nil { remove(key) }
            }
        }
        let starts =
            record.debugID.eventID == .dyldBootstrapStart
            || (record.debugID.eventID == .dyldLaunchExecutable && record.debugID.function == .start)
        if starts, !execLaunchSeen, startedThreads.insert(record.threadID).inserted {
            insert(
                Open(
                    exec: nil, order: startedThreads.count, pid: pid, mainThread: record.threadID, records: [record],
                    launches: true))
        }
    }

    private mutating func insert(_ value: Open) {
        nextKey += 1
        open[nextKey] = value
        followed[value.pid ?? Self.noPid, default: 0] += 1
        held += value.records.count
    }

    private mutating func remove(_ key: Int) {
        guard let value = open.removeValue(forKey: key) else { return }
        held -= value.records.count
        let pid = value.pid ?? Self.noPid
        followed[pid]! -= 1
        if followed[pid] == 0 { followed[pid] = nil }
    }

    /// The key of thread launches without a pid in ``followed``.
    private static let noPid = Int.min

    /// Appends `record` to the open launches of `pid`; a thread launch without a pid takes its own thread's.
    private mutating func add(_ record: KdebugRecord, pid: Int?) {
        guard followed[pid ?? Self.noPid] != nil || followed[Self.noPid] != nil else { return }
        for (key, value) in open where value.pid.map({ $0 == pid }) ?? (value.mainThread == record.threadID) {
            open[key]!.records.append(record)
            held += 1
            let id = record.debugID
            if value.main == nil, id.eventID == .dyldLaunchExecutable, id.function == .end {
                open[key]!.main = record.timestamp
            } else if let main = value.main, value.launches, id.eventID == .initialFrameRendering,
                id.function == .end, record.timestamp >= main
            {
                finishAtFirstFrame(key)
            }
        }
    }

    /// Measures the launch at its first frame; keeps it open when its phases find none (another main pairing).
    private mutating func finishAtFirstFrame(_ key: Int) {
        guard let value = open[key], let launch = measure(value), launch.phases.firstFrameMs != nil else { return }
        store(launch, of: value)
        remove(key)
    }

    private func measure(_ value: Open) -> KdebugLaunch? {
        let selection: DyldLaunchSelection = value.exec == nil ? .mainThread(value.mainThread) : .pid(value.pid ?? 0)
        guard
            let phases = DyldLaunchPhases(
                records: value.records, timebase: timebase, selection: selection, threads: threads)
        else { return nil }
        if let exec = value.exec {
            return KdebugLaunch(
                executable: kernel.names[exec] ?? value.pid.flatMap { names[$0] }, pid: value.pid, phases: phases)
        }
        let pid = kernel.pids[value.mainThread]
        return KdebugLaunch(executable: pid.flatMap { names[$0] }, pid: pid, phases: phases)
    }

    private mutating func store(_ launch: KdebugLaunch, of value: Open) {
        if value.exec != nil {
            byExec.append((value.order, launch))
        } else {
            byThread.append((value.order, launch))
        }
    }

    /// Past the cap: the open launch holding the most is measured now (or set aside when not yet a launch).
    private mutating func relieve() {
        while held > cap, let (key, value) = open.max(by: { $0.value.records.count < $1.value.records.count }) {
            remove(key)
            guard value.launches, var launch = measure(value) else {
                setAside += 1
                continue
            }
            cut += 1
            launch.phases.pageIns = nil
            launch.phases.warnings.append(
                "Its records passed \(cap) before its first frame (the most parse holds at once): it is measured "
                    + "on the records up to there; what came later is unknown, page-ins included.")
            store(launch, of: value)
        }
    }

    /// Ends the trace: measures the launches still open.
    /// - Returns: the launches in start order (by exec; without any exec that launched, by thread), and notes
    ///   on what was cut or set aside.
    package mutating func finish() -> (launches: [KdebugLaunch], notes: [String]) {
        for (_, value) in open.sorted(by: { $0.key < $1.key }) where value.launches {
            if let launch = measure(value) { store(launch, of: value) }
        }
        open = [:]
        followed = [:]
        held = 0
        var notes: [String] = []
        if cut > 0 {
            notes.append(
                "\(cut) launch(es) held more than \(cap) records before their first frame; each was measured up to "
                    + "there (its warnings say so)")
        }
        if setAside > 0 {
            notes.append(
                "\(setAside) exec(s) were set aside after \(cap) records held without dyld timing events on their "
                    + "thread")
        }
        let chosen = execLaunchSeen ? byExec : byThread
        return (chosen.sorted { $0.order < $1.order }.map(\.launch), notes)
    }
}
