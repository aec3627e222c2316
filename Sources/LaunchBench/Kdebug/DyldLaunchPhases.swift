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
    var bootstrapTimestamp: UInt64?
    /// `LAUNCH_EXECUTABLE` END's timestamp (ticks): main.
    package var mainTimestamp: UInt64?
    /// `BOOTSTRAP_START` in ms from the origin.
    package var bootstrapMs: Double?
    /// `LAUNCH_EXECUTABLE` END (main) in ms from the origin.
    package var mainMs: Double?
    /// UIKit's first frame (`UIKitFirstFrame`): the first Initial Frame Rendering END (0x31CA0006) on the thread
    /// that ran main after UIKit's BEGIN (0x2B870030), else after didFinishLaunching (code 26), in ms from the
    /// exec; nil without an exec or when the trace holds none that can be told from a stray.
    package var firstFrameMs: Double?
    /// Its timestamp (ticks).
    var firstFrameTimestamp: UInt64?
    /// Which rule gave `firstFrameMs` (anchored by the BEGIN or not); nil without one.
    package var firstFrameSource: FirstFrameSource?
    /// Initial Frame Rendering ENDs on the main thread after main and before the BEGIN (else before code 26):
    /// strays, never the first frame (ticks, by time).
    package var strayFrameEndTimestamps: [UInt64] = []
    /// UIKit's Initial Frame Rendering BEGIN after main on the main thread (ticks), if it came.
    package var frameBeginTimestamp: UInt64?
    /// The end of UIKit's `didFinishLaunchingWithOptions` (lifecycle code 26, `UIKitLifecycle`) after main, in
    /// ms from the exec; nil without an exec or when the trace does not carry it.
    package var didFinishLaunchingMs: Double?
    /// UIKit's launch phases after main, from its lifecycle codes, by start.
    package var uikitSpans: [UIKitSpan] = []
    /// The process's page faults from its exec to its first frame (else to the end of the trace); nil without
    /// an exec, or when the trace holds no page fault at all (the session did not trace them: `--page-faults`).
    package var pageIns: LaunchPageIns?
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
    ///   - faults: the trace's page faults when they were paired as they arrived (`KdebugLaunchRecorder` keeps
    ///     them so, not as records); nil pairs them from `records`.
    package init?(
        records: [KdebugRecord], timebase: MachTimebase, selection: DyldLaunchSelection = .firstLaunch,
        threads: [KdebugThread] = [], faults: [VMFault]? = nil
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
        self.init(
            process: process, map: map, strings: strings, records: sorted, timebase: timebase, faults: faults)
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
        timebase: MachTimebase, faults: [VMFault]?
    ) {
        let launch = DyldLaunchWindow(process: process, strings: strings, records: records, timebase: timebase)
        pid = process.pid
        processName = process.pid.flatMap { map.names[$0] }
        mainThreadID = process.mainThread
        self.timebase = timebase
        execTimestamp = launch.exec?.timestamp
        originTimestamp = launch.origin
        bootstrapTimestamp = launch.bootstrap
        mainTimestamp = launch.main
        bootstrapMs = launch.bootstrap.map(launch.ms)
        mainMs = launch.main.map(launch.ms)
        processCreationMs = launch.exec == nil ? nil : bootstrapMs
        totalPremainMs = launch.exec == nil ? nil : mainMs
        var frameWarnings: [String] = []
        if let main = launch.main, let thread = launch.mainThread, launch.exec != nil {
            let frame = UIKitFirstFrame(launch.own, thread: thread, main: main)
            firstFrameTimestamp = frame.timestamp
            firstFrameSource = frame.source
            strayFrameEndTimestamps = frame.strays
            frameBeginTimestamp = frame.begin
            firstFrameMs = firstFrameTimestamp.map(launch.ms)
            frameWarnings = frame.warnings
            let uikit = UIKitLifecycle.spans(launch.own, thread: thread, after: main, until: frame.timestamp)
            uikitSpans = uikit.spans
            didFinishLaunchingMs = uikit.didFinishLaunching.map(launch.ms)
        }
        dyldLaunchMode = launch.mode
        timeline = launch.intervals
        initializersByImage = [:]
        warnings = launch.warnings(allRecords: records) + frameWarnings
        measurePhases(launch)
        dropUntimedPhases(launch)
        measurePageIns(launch, strings: strings, faults: faults ?? VMFaultPairing.faults(in: launch.own))
        if !launch.unresolvedHeaders.isEmpty {
            warnings.append(
                "No UUID_MAP path for mach header(s) \(launch.unresolvedHeaders.sorted().map(Self.hex).joined(separator: ", ")): "
                    + "they are named by address; trace with 0x1F050000 and 0x07010000 enabled.")
        }
        if launch.bootstrap == nil {
            warnings.append("No BOOTSTRAP_START: process creation is unknown.")
        }
    }

    /// Counts the process's faults from its exec to its first frame (to the end of the trace without one).
    private mutating func measurePageIns(_ launch: DyldLaunchWindow, strings: KdebugStrings, faults: [VMFault]) {
        // Every launch faults (its stack and heap at least): none at all means faults were not traced, not 0.
        guard let exec = execTimestamp, !faults.isEmpty else { return }
        let images = ImagePaths(records: launch.own, strings: strings).loadAddresses
        pageIns = LaunchPageIns(
            faults: faults, threads: launch.process.threads, from: exec, to: firstFrameTimestamp ?? .max,
            images: images, timebase: timebase, origin: originTimestamp)
        if firstFrameTimestamp == nil, pageIns?.pageIns ?? 0 > 0 {
            warnings.append(
                "No first frame in the trace: page-ins are counted from the exec to the end of the capture.")
        }
    }

    /// Every phase is the time its intervals cover, counted once (see `IntervalCoverage`).
    private mutating func measurePhases(_ launch: DyldLaunchWindow) {
        let intervals = launch.intervals
        dylibLoadingMs = launch.ticks([.mapImage, .attachCodeSignature]).map(timebase.milliseconds)
        objcSetupMs = launch.ticks([.objcMap]).map(timebase.milliseconds)
        closureBuildMs =
            intervals.contains { $0.kind == .buildClosure } || launch.brokenKinds.contains(.buildClosure)
            ? launch.ticks([.buildClosure]).map(timebase.milliseconds) : nil

        // dyld4 fixes up the launch once (dyld-1378 `dyldMain.cpp:775`), dyld3 once per image (dyld-832.7.3
        // `dyld3/Loading.cpp:793`); a dlopen in an initializer adds its own, before main, and counts too.
        let fixups = intervals.filter { $0.kind == .applyFixups }
        rebaseBindingMs = fixups.isEmpty ? nil : launch.ticks([.applyFixups]).map(timebase.milliseconds)
        if fixups.isEmpty, !launch.brokenKinds.contains(.applyFixups), launch.main != nil, !launch.dyld2 {
            warnings.append("No APPLY_FIXUPS interval in the launch: rebase/binding time is unknown.")
        }

        // Initializers: their covered time toward the total; by image, each interval counts.
        let initializers = intervals.filter { $0.kind == .staticInitializer || $0.kind == .objcInit }
        var byImage: [String: UInt64] = [:]
        for interval in initializers { byImage[interval.image ?? "?", default: 0] += interval.ticks }
        initializerMs = launch.ticks([.staticInitializer, .objcInit]).map(timebase.milliseconds)
        if initializers.isEmpty && launch.main == nil { initializerMs = nil }
        initializersByImage = byImage.mapValues(timebase.milliseconds)

        // dyld tells libobjc about the images loaded at launch when libobjc registers its callbacks, from
        // libSystem's initializer, without an OBJC_MAP timer (dyld-1378 `DyldRuntimeState.cpp:2129`, dyld-832.7.3
        // `dyld3/AllImages.cpp:1410` setObjCNotifiers; the timed map_images is for later loads): initializer time.
        if launch.main != nil, !intervals.contains(where: { $0.kind == .objcMap }),
            !launch.brokenKinds.contains(.objcMap)
        {
            objcSetupMs = nil
            warnings.append(
                "No OBJC_MAP interval in the launch: dyld hands the images loaded at launch to libobjc inside "
                    + "libSystem's initializer, untimed, so ObjC setup is unknown on its own; its time is part of "
                    + "libSystem's initializer time.")
        }
    }

    /// Drops the phases whose timers end as they start on the launch's dyld, saying so.
    private mutating func dropUntimedPhases(_ launch: DyldLaunchWindow) {
        let dyld3 = launch.dyld3
        let dyld2 = launch.dyld2
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
                "A \(dyld3 ? "dyld3" : "dyld2") launch (LAUNCH_EXECUTABLE END arg4 = \(launch.mode ?? 0), iOS 13–14): its "
                    + "STATIC_INITIALIZER timers end as they start, so \(unknown.joined(separator: ", ")) time is "
                    + "unknown from kdebug (dyld's printed statistics have it).")
        }

        // dyld-940…960 (iOS 15): the launch fixups and every static initializer read about 0.
        let intervals = launch.intervals
        let oneMicrosecond = 1_000.0
        let fixups = intervals.filter { $0.kind == .applyFixups }
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
    }

    static func affected(_ kind: DyldIntervalKind) -> String {
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
