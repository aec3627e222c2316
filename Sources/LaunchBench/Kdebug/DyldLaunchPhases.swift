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

/// The pre-main phases of one app launch, from dyld4's own kdebug intervals (issue 20).
///
/// Every value is in ms. A value is nil, never 0, when the trace cannot give it, and `warnings` says why in
/// words: an interval whose START has no END (or the reverse), a missing exec or `LAUNCH_EXECUTABLE` END, or
/// dyld-940…960's zero-length fixup and initializer timers (iOS 15). Intervals are paired by dyld's trace-pair
/// id in arg1, not by nesting, and only those that start before `LAUNCH_EXECUTABLE` ends (before `main`) count.
package struct DyldLaunchPhases: Sendable {
    /// The process, when the trace maps its thread to a pid.
    package var pid: Int?
    /// The process name from `TRACE_STRING_EXEC` or the thread map.
    package var processName: String?
    /// The thread that exec'd (or, without an exec, that started dyld's launch).
    package var mainThreadID: UInt64
    /// The timebase the ms values were computed with.
    package var timebase: MachTimebase
    /// The exec's timestamp (ticks), nil when the trace lacks it.
    package var execTimestamp: UInt64?
    /// Where `startMs`/`endMs`, `bootstrapMs` and `mainMs` count from: the exec; without one, `BOOTSTRAP_START`,
    /// else the process's first dyld timing event.
    package var originTimestamp: UInt64

    /// Exec → dyld's `start` (`BOOTSTRAP_START`): the kernel's part of process creation.
    package var processCreationMs: Double?
    /// The time MAP_IMAGE and ATTACH_CODESIGNATURE cover, counted once (the attach runs inside the map):
    /// loading the images that are not in the shared cache.
    package var dylibLoadingMs: Double?
    /// The time APPLY_FIXUPS covers before main: rebase and binding.
    package var rebaseBindingMs: Double?
    /// The time OBJC_MAP covers: the ObjC runtime's `map_images`; nil when the launch has none (dyld4 then runs
    /// it untimed inside libSystem's initializer).
    package var objcSetupMs: Double?
    /// The time STATIC_INITIALIZER and OBJC_INIT cover, counted once; nil on dyld3/dyld2 launches, whose
    /// initializer timers end as they start.
    package var initializerMs: Double?
    /// Exec → `LAUNCH_EXECUTABLE` END, which dyld emits right before calling `main`.
    package var totalPremainMs: Double?
    /// The time BUILD_CLOSURE covers: nil when dyld reused a saved launch closure (no such interval).
    package var closureBuildMs: Double?
    /// STATIC_INITIALIZER + OBJC_INIT time by image path (or `0x…` mach header when the path is unknown).
    package var initializersByImage: [String: Double]
    /// `BOOTSTRAP_START`'s timestamp (ticks).
    package var bootstrapTimestamp: UInt64?
    /// `LAUNCH_EXECUTABLE` END's timestamp (ticks): main.
    package var mainTimestamp: UInt64?
    /// `BOOTSTRAP_START` in ms from the origin.
    package var bootstrapMs: Double?
    /// `LAUNCH_EXECUTABLE` END (main) in ms from the origin.
    package var mainMs: Double?
    /// The end of UIKit's Initial Frame Rendering (0x31CA0006) on the process's threads after main: the first
    /// frame, in ms from the exec; nil without an exec or when the trace does not carry it.
    package var firstFrameMs: Double?
    /// Its timestamp (ticks).
    package var firstFrameTimestamp: UInt64?
    /// LAUNCH_EXECUTABLE END's arg4: 3 for a dyld3 launch, 2 for dyld2 (iOS 13–14), 4 or 0 for dyld4; nil
    /// without that END.
    package var dyldLaunchMode: UInt64?
    /// Every paired interval that starts before main, by START time, with times from the origin.
    package var timeline: [DyldInterval]
    /// Why values are nil or doubtful, in words, in the order found.
    package var warnings: [String]

    /// Measures one launch.
    /// - Parameters:
    ///   - records: the trace's records in stream order (they are sorted by timestamp, stably, first).
    ///   - timebase: the device's mach timebase.
    ///   - selection: which launch.
    ///   - threads: the RAW_VERSION2 header's thread map, if any (thread → pid for threads that predate the trace).
    /// - Returns: nil when no process matching `selection` appears in the records at all.
    package init?(
        records: [KdebugRecord], timebase: MachTimebase, selection: DyldLaunchSelection = .firstLaunch,
        threads: [KdebugThread] = []
    ) {
        let sorted = records.enumerated().sorted {
            ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset)
        }.map(\.element)
        var map = ProcessMap(threads: threads)
        var strings = KdebugStrings()
        for record in sorted {
            map.consume(record)
            strings.consume(record)
        }
        guard let process = map.select(selection, records: sorted) else { return nil }
        self.init(process: process, map: map, strings: strings, records: sorted, timebase: timebase)
    }

    /// Measures one launch of a decoded trace, with its header's thread map.
    /// - Parameters:
    ///   - trace: the decoded trace.
    ///   - timebase: the device's mach timebase.
    ///   - selection: which launch.
    /// - Returns: nil when no process matching `selection` appears in the trace.
    package init?(trace: KdebugTrace, timebase: MachTimebase, selection: DyldLaunchSelection = .firstLaunch) {
        self.init(
            records: trace.records, timebase: timebase, selection: selection, threads: trace.header?.threads ?? [])
    }

    private init(
        process: ProcessMap.Selected, map: ProcessMap, strings: KdebugStrings, records: [KdebugRecord],
        timebase: MachTimebase
    ) {
        var warnings: [String] = []
        let exec = process.exec
        let own = records.filter { process.threads.contains($0.threadID) && $0.timestamp >= (exec?.timestamp ?? 0) }
        let pairs = IntervalPairs(records: own)
        let bootstrap = pairs.bootstrap
        let firstDyld = own.first { $0.debugID.eventClass == 31 && $0.debugID.subclass == 7 }?.timestamp
        let origin = exec?.timestamp ?? bootstrap ?? firstDyld ?? own.first?.timestamp ?? 0
        let ms = { (timestamp: UInt64) in timebase.milliseconds(from: origin, to: timestamp) }
        let at = { (timestamp: UInt64) in "+" + Self.format(ms(timestamp)) + " ms" }
        if exec == nil {
            let who = process.pid.map { "pid \($0)" } ?? "thread \(process.mainThread)"
            warnings.append(
                "No TRACE_DATA_EXEC (0x07000008) for \(who): process creation and total pre-main are unknown, "
                    + "and times count from BOOTSTRAP_START (or the first dyld event); trace with class 7 (0x07FF0000) enabled."
            )
        }

        let names = ImagePaths(records: own, strings: strings)
        let unpaired = pairs.unpaired
        let paired = pairs.paired.map { start, end, kind in
            let (path, header) = names.image(kind: kind, start: start)
            return DyldInterval(
                kind: kind, image: path, machHeader: header, threadID: start.threadID, pairID: start.arg1,
                startTimestamp: start.timestamp, endTimestamp: end.timestamp, startMs: ms(start.timestamp),
                endMs: ms(end.timestamp))
        }

        // The launch: the first LAUNCH_EXECUTABLE; its END is main and closes the window.
        let launch = paired.filter { $0.kind == .launchExecutable }.min { $0.startTimestamp < $1.startTimestamp }
        let orphanEnd = unpaired.first { $0.kind == .launchExecutable && $0.record.debugID.function == .end }
        let main = launch?.endTimestamp ?? orphanEnd?.record.timestamp
        let window = main ?? .max
        let intervals = paired.filter { $0.startTimestamp <= window }.sorted {
            ($0.startTimestamp, $0.endTimestamp) < ($1.startTimestamp, $1.endTimestamp)
        }
        let broken = unpaired.filter { $0.record.timestamp <= window }
        var brokenKinds: Set<DyldIntervalKind> = []
        for (record, kind) in broken {
            brokenKinds.insert(kind)
            let (has, lacks) = record.debugID.function == .start ? ("START", "END") : ("END", "START")
            warnings.append(
                "\(kind.rawValue) \(has) at \(at(record.timestamp)) (pair id \(Self.hex(record.arg1))) has no "
                    + "\(lacks): \(Self.affected(kind)) unknown.")
        }
        if main == nil {
            warnings.append(
                "No LAUNCH_EXECUTABLE END: the trace stops before main (the app crashed, was prewarmed, or events "
                    + "were lost), so total pre-main is unknown and phases seen so far may be partial.")
        }
        // The kernel reports lost events on whichever thread notices, so look at every thread.
        let lostEvents = records.filter {
            $0.debugID.eventID == .traceLostEvents && $0.timestamp >= origin && $0.timestamp <= window
        }.map(\.timestamp)
        for timestamp in lostEvents {
            warnings.append(
                "The kernel lost events at \(at(timestamp)) (TRACE_LOST_EVENTS): any phase may be missing intervals.")
        }

        // The launch's mode: LAUNCH_EXECUTABLE END arg4 (dyld-832.7.3 `dyld2.cpp:6076` ends a dyld3 launch with
        // 3, `:7100` a dyld2 one with 2; dyld4 writes 4 (dyld-940 `dyldMain.cpp:747`) or 0 (dyld-1378
        // `dyldMain.cpp:1011`)).
        let launchEnd = pairs.paired.filter { $0.kind == .launchExecutable }.min {
            $0.start.timestamp < $1.start.timestamp
        }?.end
        let mode = (launchEnd ?? orphanEnd?.record)?.arg4
        let dyld3 = mode == 3
        let dyld2 = mode == 2

        // Every phase is the time its intervals cover, counted once (see `IntervalCoverage`).
        func ticks(_ kinds: Set<DyldIntervalKind>) -> UInt64? {
            guard brokenKinds.isDisjoint(with: kinds) else { return nil }
            let chosen = intervals.filter { kinds.contains($0.kind) }
            if chosen.isEmpty && main == nil { return nil }
            return IntervalCoverage.ticks(chosen)
        }
        dylibLoadingMs = ticks([.mapImage, .attachCodeSignature]).map(timebase.milliseconds)
        objcSetupMs = ticks([.objcMap]).map(timebase.milliseconds)
        closureBuildMs =
            intervals.contains { $0.kind == .buildClosure } || brokenKinds.contains(.buildClosure)
            ? ticks([.buildClosure]).map(timebase.milliseconds) : nil

        // dyld4 fixes up the launch once (dyld-1378 `dyldMain.cpp:775`), dyld3 once per image (dyld-832.7.3
        // `dyld3/Loading.cpp:793`); a dlopen in an initializer adds its own, before main, and counts too.
        let fixups = intervals.filter { $0.kind == .applyFixups }
        rebaseBindingMs = fixups.isEmpty ? nil : ticks([.applyFixups]).map(timebase.milliseconds)
        if fixups.isEmpty, !brokenKinds.contains(.applyFixups), main != nil, !dyld2 {
            warnings.append("No APPLY_FIXUPS interval in the launch: rebase/binding time is unknown.")
        }

        // Initializers: their covered time toward the total; by image, each interval counts.
        let initializers = intervals.filter { $0.kind == .staticInitializer || $0.kind == .objcInit }
        var byImage: [String: UInt64] = [:]
        for interval in initializers { byImage[interval.image ?? "?", default: 0] += interval.ticks }
        initializerMs = ticks([.staticInitializer, .objcInit]).map(timebase.milliseconds)
        if initializers.isEmpty && main == nil { initializerMs = nil }
        initializersByImage = byImage.mapValues(timebase.milliseconds)

        // dyld tells libobjc about the images loaded at launch when libobjc registers its callbacks, from
        // libSystem's initializer, without an OBJC_MAP timer (dyld-1378 `DyldRuntimeState.cpp:2129`, dyld-832.7.3
        // `dyld3/AllImages.cpp:1410` setObjCNotifiers; the timed map_images is for later loads): initializer time.
        if main != nil, !intervals.contains(where: { $0.kind == .objcMap }), !brokenKinds.contains(.objcMap) {
            objcSetupMs = nil
            warnings.append(
                "No OBJC_MAP interval in the launch: dyld hands the images loaded at launch to libobjc inside "
                    + "libSystem's initializer, untimed, so ObjC setup is unknown on its own; its time is part of "
                    + "libSystem's initializer time.")
        }

        // dyld3 (iOS 13–14) and dyld2 run each initializer under an unnamed timer that ends at once
        // (dyld-832.7.3 `dyld3/AllImages.cpp:1672`, `src/ImageLoaderMachO.cpp:2268`); dyld2 also so times its
        // fixups (`src/ImageLoader.cpp:522`) and code signatures (`src/ImageLoaderMachO.cpp:1134`) and maps no
        // image under MAP_IMAGE.
        if dyld3 || dyld2 {
            initializerMs = nil
            initializersByImage = [:]
            var unknown = ["initializer"]
            if dyld2 {
                dylibLoadingMs = nil
                rebaseBindingMs = nil
                unknown = ["dylib loading", "rebase/binding", "initializer"]
            }
            warnings.append(
                "A \(dyld3 ? "dyld3" : "dyld2") launch (LAUNCH_EXECUTABLE END arg4 = \(mode ?? 0), iOS 13–14): its "
                    + "STATIC_INITIALIZER timers end as they start, so \(unknown.joined(separator: ", ")) time is "
                    + "unknown from kdebug (dyld's printed statistics have it).")
        }

        // dyld-940…960 (iOS 15): the launch fixups and every static initializer read about 0.
        let oneMicrosecond = 1_000.0
        let statics = intervals.filter { $0.kind == .staticInitializer }
        let real = intervals.contains {
            [.mapImage, .objcMap, .objcInit, .launchExecutable].contains($0.kind)
                && timebase.nanoseconds($0.ticks) >= oneMicrosecond
        }
        if !dyld3, !dyld2, let first = fixups.first, timebase.nanoseconds(first.ticks) < oneMicrosecond, real,
            statics.allSatisfy({ timebase.nanoseconds($0.ticks) < oneMicrosecond })
        {
            rebaseBindingMs = nil
            initializerMs = nil
            initializersByImage = [:]
            warnings.append(
                "APPLY_FIXUPS and all \(statics.count) STATIC_INITIALIZER intervals last under 1 µs while other "
                    + "intervals are real: dyld-940…960 (iOS 15) ends those timers at once, so rebase/binding and "
                    + "initializer times are unknown on this OS.")
        }
        dyldLaunchMode = mode

        // Named by address only: a mach header with no UUID_MAP path, among the launch's intervals.
        let unresolvedHeaders = Set(
            intervals.compactMap { interval in interval.machHeader.flatMap { interval.image == Self.hex($0) ? $0 : nil }
            })
        if !unresolvedHeaders.isEmpty {
            warnings.append(
                "No UUID_MAP path for mach header(s) \(unresolvedHeaders.sorted().map(Self.hex).joined(separator: ", ")): "
                    + "they are named by address; trace with 0x1F050000 and 0x07010000 enabled.")
        }
        if bootstrap == nil {
            warnings.append("No BOOTSTRAP_START: process creation is unknown.")
        }
        pid = process.pid
        processName = process.pid.flatMap { map.names[$0] }
        mainThreadID = process.mainThread
        self.timebase = timebase
        execTimestamp = exec?.timestamp
        originTimestamp = origin
        bootstrapTimestamp = bootstrap
        mainTimestamp = main
        bootstrapMs = bootstrap.map(ms)
        mainMs = main.map(ms)
        processCreationMs = exec == nil ? nil : bootstrapMs
        totalPremainMs = exec == nil ? nil : mainMs
        if let main, exec != nil {
            firstFrameTimestamp =
                own.first {
                    $0.debugID.eventID == .initialFrameRendering && $0.debugID.function == .end && $0.timestamp >= main
                }?.timestamp
            firstFrameMs = firstFrameTimestamp.map(ms)
        }
        timeline = intervals
        self.warnings = warnings
    }

    private static func affected(_ kind: DyldIntervalKind) -> String {
        switch kind {
        case .launchExecutable: return "the launch interval is"
        case .mapImage, .attachCodeSignature: return "dylib loading is"
        case .applyFixups: return "rebase/binding is"
        case .buildClosure: return "closure build is"
        case .objcMap: return "ObjC setup is"
        case .objcInit, .staticInitializer: return "initializer time is"
        }
    }

    static func hex(_ value: UInt64) -> String { "0x" + String(value, radix: 16) }

    static func format(_ ms: Double) -> String {
        // A trace's timestamps are 64-bit ticks: past 2^53 thousandths there is nothing exact left to show.
        guard ms.isFinite, abs(ms) < 9e12 else { return ms.description }
        let thousandths = Int((ms * 1000).rounded())
        let sign = thousandths < 0 ? "-" : ""
        let magnitude = abs(thousandths)
        let fraction = String(magnitude % 1000)
        return sign + "\(magnitude / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

/// Image paths by mach header: UUID_MAP_A (arg3 = load address) followed on the same thread by UUID_MAP_B
/// (arg2 = path string id).
private struct ImagePaths {
    private var pathIDs: [UInt64: UInt64] = [:]
    private let strings: KdebugStrings

    init(records: [KdebugRecord], strings: KdebugStrings) {
        self.strings = strings
        var mapA: [UInt64: UInt64] = [:]
        for record in records {
            if record.debugID.eventID == .dyldUUIDMapA {
                mapA[record.threadID] = record.arg3
            } else if record.debugID.eventID == .dyldUUIDMapB, let header = mapA.removeValue(forKey: record.threadID) {
                pathIDs[header] = record.arg2
            }
        }
    }

    /// The image an interval concerns (MAP_IMAGE: START arg2 is a path string id; the others: a mach header),
    /// `0x…` for a mach header without a path.
    func image(kind: DyldIntervalKind, start: KdebugRecord) -> (image: String?, header: UInt64?) {
        switch kind {
        case .mapImage:
            return (strings[start.arg2], nil)
        case .staticInitializer, .objcInit, .launchExecutable:
            let header = start.arg2
            if let id = pathIDs[header], let path = strings[id], !path.isEmpty { return (path, header) }
            return (DyldLaunchPhases.hex(header), header)
        case .attachCodeSignature, .applyFixups, .buildClosure, .objcMap:
            return (nil, nil)
        }
    }
}

/// dyld's START and END records paired by (event, trace-pair id in arg1), not by nesting. A START whose id
/// comes again before its END is left unpaired; so is an END with no open START, and a START never closed.
private struct IntervalPairs {
    var paired: [(start: KdebugRecord, end: KdebugRecord, kind: DyldIntervalKind)] = []
    /// By timestamp, then pair id.
    var unpaired: [(record: KdebugRecord, kind: DyldIntervalKind)] = []
    /// The first BOOTSTRAP_START.
    var bootstrap: UInt64?

    private struct Key: Hashable {
        var event: KdebugDebugID
        var pair: UInt64
    }

    init(records: [KdebugRecord]) {
        var open: [Key: (record: KdebugRecord, kind: DyldIntervalKind)] = [:]
        for record in records {
            let id = record.debugID
            if id.eventID == .dyldBootstrapStart {
                if bootstrap == nil { bootstrap = record.timestamp }
                continue
            }
            guard let kind = DyldIntervalKind(eventID: id.eventID) else { continue }
            let key = Key(event: id.eventID, pair: record.arg1)
            switch id.function {
            case .start:
                if let earlier = open.updateValue((record, kind), forKey: key) { unpaired.append(earlier) }
            case .end:
                if let start = open.removeValue(forKey: key) {
                    paired.append((start.record, record, kind))
                } else {
                    unpaired.append((record, kind))
                }
            case .startAndEnd:
                paired.append((record, record, kind))
            case .none:
                continue
            }
        }
        unpaired += open.values
        unpaired.sort { ($0.record.timestamp, $0.record.arg1) < ($1.record.timestamp, $1.record.arg1) }
    }
}

/// Threads, pids and process names as the kernel's class-7 events and the header's thread map tell them.
private struct ProcessMap {
    var pids: [UInt64: Int] = [:]
    var names: [Int: String] = [:]
    var execs: [KdebugRecord] = []
    /// The name each exec ran under (TRACE_STRING_EXEC after it on its thread), by the exec's index in `execs`.
    var execNames: [Int: String] = [:]
    private var lastExecOnThread: [UInt64: Int] = [:]

    struct Selected {
        var pid: Int?
        var mainThread: UInt64
        var exec: KdebugRecord?
        var threads: Set<UInt64>
    }

    init(threads: [KdebugThread]) {
        for thread in threads {
            pids[thread.threadID] = thread.pid
            if !thread.processName.isEmpty { names[thread.pid] = thread.processName }
        }
    }

    mutating func consume(_ record: KdebugRecord) {
        switch record.debugID.eventID {
        case .traceDataNewThread:
            pids[record.arg1] = Int(truncatingIfNeeded: record.arg2)
        case .traceDataExec:
            pids[record.threadID] = Int(truncatingIfNeeded: record.arg1)
            lastExecOnThread[record.threadID] = execs.count
            execs.append(record)
        case .traceStringExec:
            let name = String(decoding: record.argumentBytes.prefix { $0 != 0 }, as: UTF8.self)
            if let pid = pids[record.threadID], !name.isEmpty { names[pid] = name }
            if let index = lastExecOnThread.removeValue(forKey: record.threadID), !name.isEmpty {
                execNames[index] = name
            }
        default:
            break
        }
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
                    execNames[$0].map { DyldLaunchSelection.execName($0, matches: executable) } ?? false
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
