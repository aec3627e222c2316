/// The execs of the app's executable in a stretch of trace that launchbench did not start (the phone's own
/// prelaunches, see `Prelaunch`), and how far each got by dyld's events in its process: `LAUNCH_EXECUTABLE`'s
/// END comes right before dyld calls `main` (dyld-1378 `dyld/dyldMain.cpp:1011`), after the initializers
/// (`:983`); a launch made to build its closure (`DYLD_JUST_BUILD_CLOSURE`) builds it (`:941`) and exits before
/// both (`:960`, since dyld-1160.6). A "DAS Prewarm launch" has no branch of its own in dyld: it runs to
/// `main`, and UIKit holds it before `UIApplicationMain` (Apple's "About the app launch sequence").
enum Prelaunches {
    /// One exec that was not the launch.
    struct Seen: Sendable {
        /// Its `TRACE_DATA_EXEC`.
        var exec: KdebugRecord
        var pid: Int
        var reached: Prelaunch.Reach
        /// Whether dyld built the launch closure in it (`BUILD_CLOSURE`).
        var builtClosure: Bool
        /// The process's threads, whose records are not the launch's.
        var threads: Set<UInt64>

        /// What the phone most likely did: a closure build that stopped in dyld is a closure generation.
        var kind: Prelaunch.Kind { builtClosure && reached == .dyld ? .closureGeneration : .prewarm }
    }

    /// Identifies an exec across calls (its thread and time).
    struct ExecKey: Hashable, Sendable {
        var thread: UInt64
        var timestamp: UInt64
        init(_ record: KdebugRecord) {
            thread = record.threadID
            timestamp = record.timestamp
        }
    }

    /// Every exec under `executable`'s name in `records`, oldest first.
    static func execs(of executable: String, in records: [KdebugRecord], threads: [KdebugThread]) -> (
        execs: [KdebugRecord], map: KdebugExecs
    ) {
        var map = KdebugExecs(threads: threads)
        for record in records { map.consume(record) }
        let matching = map.execs.indices.filter { index in
            map.names[index].map { DyldLaunchSelection.execName($0, matches: executable) } ?? false
        }.map { map.execs[$0] }
        return (matching.sorted { $0.timestamp < $1.timestamp }, map)
    }

    /// The execs of `executable` in `records` except those in `excluded`, with how far each got.
    static func find(
        _ executable: String, in records: [KdebugRecord], threads: [KdebugThread], excluding excluded: Set<ExecKey>
    ) -> [Seen] {
        let (execs, map) = execs(of: executable, in: records, threads: threads)
        return execs.filter { !excluded.contains(ExecKey($0)) }.map { seen($0, in: records, map: map) }
    }

    /// How far the process of `exec` got.
    static func seen(_ exec: KdebugRecord, in records: [KdebugRecord], map: KdebugExecs) -> Seen {
        let pid = Int(truncatingIfNeeded: exec.arg1)
        let threads = Set(map.pids.filter { $0.value == pid }.keys).union([exec.threadID])
        var main = false
        var initializers = false
        var closure = false
        for record in records where record.timestamp >= exec.timestamp && threads.contains(record.threadID) {
            switch record.debugID.eventID {
            case .dyldLaunchExecutable where record.debugID.function == .end && record.threadID == exec.threadID:
                main = true
            case .dyldStaticInitializer: initializers = true
            case .dyldBuildClosure: closure = true
            default: break
            }
        }
        return Seen(
            exec: exec, pid: pid, reached: main ? .main : initializers ? .initializers : .dyld, builtClosure: closure,
            threads: threads)
    }

    /// The newest of `seen` as the launch's `prelaunch`: how many there were, and the seconds from its exec to
    /// `launch` (device clock).
    static func label(_ seen: [Seen], launch: KdebugRecord?, timebase: MachTimebase) -> Prelaunch? {
        guard let latest = seen.max(by: { $0.exec.timestamp < $1.exec.timestamp }) else { return nil }
        let seconds = launch.flatMap { launch in
            launch.timestamp >= latest.exec.timestamp
                ? timebase.milliseconds(from: latest.exec.timestamp, to: launch.timestamp) / 1000 : nil
        }
        return Prelaunch(
            kind: latest.kind, pid: latest.pid, reached: latest.reached, secondsBefore: seconds, count: seen.count,
            source: .kdebug)
    }
}
