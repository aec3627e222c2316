/// One launch's own records and its dyld intervals up to main, which the phases are measured from: the
/// process's records from its exec on, paired by dyld's trace-pair id, with the times counted from the origin.
struct DyldLaunchWindow {
    let process: ProcessMap.Selected
    let timebase: MachTimebase
    /// The process's records from its exec on.
    let own: [KdebugRecord]
    /// The first BOOTSTRAP_START (ticks).
    let bootstrap: UInt64?
    /// Where times count from: the exec; without one, `BOOTSTRAP_START`, else the first dyld timing event.
    let origin: UInt64
    /// LAUNCH_EXECUTABLE END (ticks): main; nil when the trace stops before it.
    let main: UInt64?
    /// The thread that ran main: LAUNCH_EXECUTABLE END's, which dyld emits on the thread it calls main on
    /// (dyld-1378 `dyldMain.cpp:1011`); nil without that END.
    let mainThread: UInt64?
    /// LAUNCH_EXECUTABLE END's arg4: dyld's mode.
    let mode: UInt64?
    /// Every paired interval that starts before main, by START time.
    let intervals: [DyldInterval]
    /// STARTs without an END and ENDs without a START, before main.
    let broken: [(record: KdebugRecord, kind: DyldIntervalKind)]
    /// The kinds of `broken`: a phase with one is unknown.
    let brokenKinds: Set<DyldIntervalKind>

    var exec: KdebugRecord? { process.exec }

    init(process: ProcessMap.Selected, strings: KdebugStrings, records: [KdebugRecord], timebase: MachTimebase) {
        self.process = process
        self.timebase = timebase
        let exec = process.exec
        own = records.filter { process.threads.contains($0.threadID) && $0.timestamp >= (exec?.timestamp ?? 0) }
        let pairs = IntervalPairs(records: own)
        bootstrap = pairs.bootstrap
        let firstDyld = own.first { $0.debugID.eventClass == 31 && $0.debugID.subclass == 7 }?.timestamp
        let origin = exec?.timestamp ?? bootstrap ?? firstDyld ?? own.first?.timestamp ?? 0
        self.origin = origin

        // The launch: the first LAUNCH_EXECUTABLE; its END is main and closes the window.
        let launchEnd = pairs.paired.filter { $0.kind == .launchExecutable }.min {
            $0.start.timestamp < $1.start.timestamp
        }?.end
        let orphanEnd = pairs.unpaired.first { $0.kind == .launchExecutable && $0.record.debugID.function == .end }
        main = launchEnd?.timestamp ?? orphanEnd?.record.timestamp
        mainThread = (launchEnd ?? orphanEnd?.record)?.threadID
        // The launch's mode: LAUNCH_EXECUTABLE END arg4 (dyld-832.7.3 `dyld2.cpp:6076` ends a dyld3 launch with
        // 3, `:7100` a dyld2 one with 2; dyld4 writes 4 (dyld-940 `dyldMain.cpp:747`) or 0 (dyld-1378
        // `dyldMain.cpp:1011`)).
        mode = (launchEnd ?? orphanEnd?.record)?.arg4

        let window = main ?? .max
        let names = ImagePaths(records: own, strings: strings)
        intervals = pairs.paired.map { start, end, kind in
            let (path, header) = names.image(kind: kind, start: start)
            var interval = DyldInterval(
                kind: kind, image: path, machHeader: header, threadID: start.threadID, pairID: start.arg1,
                startTimestamp: start.timestamp, endTimestamp: end.timestamp,
                startMs: timebase.milliseconds(from: origin, to: start.timestamp),
                endMs: timebase.milliseconds(from: origin, to: end.timestamp))
            if kind == .staticInitializer, let header {
                interval.initializerOffset = InitializerAddress.offset(function: start.arg3, header: header)
            }
            return interval
        }.filter { $0.startTimestamp <= window }.sorted {
            ($0.startTimestamp, $0.endTimestamp) < ($1.startTimestamp, $1.endTimestamp)
        }
        broken = pairs.unpaired.filter { $0.record.timestamp <= window }
        brokenKinds = Set(broken.map(\.kind))
    }

    /// A dyld3 launch (iOS 13–14).
    var dyld3: Bool { mode == 3 }
    /// A dyld2 launch (iOS ≤ 14 with an override variable).
    var dyld2: Bool { mode == 2 }

    /// `timestamp` in ms from the origin.
    func ms(_ timestamp: UInt64) -> Double { timebase.milliseconds(from: origin, to: timestamp) }

    /// The ticks `kinds`' intervals cover, counted once; nil when one of them is broken, or when there is none
    /// and the trace stops before main.
    func ticks(_ kinds: Set<DyldIntervalKind>) -> UInt64? {
        guard brokenKinds.isDisjoint(with: kinds) else { return nil }
        let chosen = intervals.filter { kinds.contains($0.kind) }
        if chosen.isEmpty && main == nil { return nil }
        return IntervalCoverage.ticks(chosen)
    }

    /// Mach headers named by address only (no UUID_MAP path), among the launch's intervals.
    var unresolvedHeaders: Set<UInt64> {
        Set(intervals.compactMap { interval in interval.machHeader.flatMap { interval.image == hex($0) ? $0 : nil } })
    }

    /// What makes the window itself doubtful: no exec, broken intervals, no main, lost events; in that order.
    /// - Parameter allRecords: the whole trace (the kernel reports lost events on whichever thread notices).
    func warnings(allRecords: [KdebugRecord]) -> [String] {
        var warnings: [String] = []
        let at = { (timestamp: UInt64) in "+" + DyldLaunchPhases.format(ms(timestamp)) + " ms" }
        if exec == nil {
            let who = process.pid.map { "pid \($0)" } ?? "thread \(process.mainThread)"
            warnings.append(
                "No TRACE_DATA_EXEC (0x07000008) for \(who): process creation and total pre-main are unknown, "
                    + "and times count from BOOTSTRAP_START (or the first dyld event); trace with class 7 (0x07FF0000) enabled."
            )
        }
        for (record, kind) in broken {
            let (has, lacks) = record.debugID.function == .start ? ("START", "END") : ("END", "START")
            warnings.append(
                "\(kind.rawValue) \(has) at \(at(record.timestamp)) (pair id \(hex(record.arg1))) has no "
                    + "\(lacks): \(DyldLaunchPhases.affected(kind)) unknown.")
        }
        if main == nil {
            warnings.append(
                "No LAUNCH_EXECUTABLE END: the trace stops before main (the app crashed, was prewarmed, or events "
                    + "were lost), so total pre-main is unknown and phases seen so far may be partial.")
        }
        let window = main ?? .max
        let lostEvents = allRecords.filter {
            $0.debugID.eventID == .traceLostEvents && $0.timestamp >= origin && $0.timestamp <= window
        }.map(\.timestamp)
        for timestamp in lostEvents {
            warnings.append(
                "The kernel lost events at \(at(timestamp)) (TRACE_LOST_EVENTS): any phase may be missing intervals.")
        }
        return warnings
    }

    private func hex(_ value: UInt64) -> String { DyldLaunchPhases.hex(value) }
}
