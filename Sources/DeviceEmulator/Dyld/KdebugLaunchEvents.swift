import Foundation
import LaunchBench

/// The kernel trace events of one launch, as xnu and dyld emit them (MODERN-LAUNCH-METRICS.md §1 and its
/// Corrections, DVT-KDEBUG.md §3): launchd's new thread and `xpcproxy`'s exec and dyld launch, then, in the
/// same pid on a new thread id, the app's exec with its name, dyld's BOOTSTRAP_START, the LAUNCH_EXECUTABLE
/// interval (END arg4 = dyld's mode) holding one MAP_IMAGE per embedded image with its ATTACH_CODESIGNATURE
/// inside (dyld3, dyld4), APPLY_FIXUPS and one STATIC_INITIALIZER per image (zero-length under dyld3 and
/// dyld2), no OBJC_MAP (ObjC's setup runs in libSystem's initializer), each image's path string and UUID map
/// (the executable's twice), then the end of UIKit's Initial Frame Rendering at the first frame. The times
/// are the launch plan's, so what kdebug can time equals the dyld statistics the same launch prints on iOS
/// ≤ 14 (to the microsecond).
///
/// Modelled, not observed (Documentation/Kdebug.md, "What each iOS version allows"): the process-creation
/// time, the gaps between phases, BUILD_CLOSURE on the first launch after an install, and dyld-940…960's
/// (iOS 15) zero-length fixup and initializer intervals.
struct KdebugLaunchEvents {
    /// 24 MHz: the tick of arm64 iPhones (timebase 125/3).
    static let ticksPerMicrosecond: UInt64 = 24
    /// launchd, which spawns apps: the parent thread of every new process.
    static let launchdThread: UInt64 = 101

    let plan: LaunchPlan
    let osVersion: OSVersion
    /// Whether dyld builds the launch closure this launch (the first after an install).
    let buildsClosure: Bool

    /// The main thread of the launched process.
    var threadID: UInt64 { 0x10_0000 + UInt64(plan.pid) * 16 }

    /// Where exec happens relative to the plan's clock (its 0 is the process start); dyld's work follows.
    struct Timeline {
        var records: [KdebugRecord]
        /// Emulated ms after exec of the last event (LAUNCH_EXECUTABLE's end, or where a fault cut it).
        var endMs: Double
    }

    /// The records with timestamps counted from `execTick`. Events after the process ended early (a crash
    /// before main) are left out, as the process never emitted them.
    func timeline(execTick: UInt64) -> Timeline {
        var random = SeededRandom(seed: 0xD1_1D, parts: [String(plan.pid), String(plan.launchNumber)])
        var builder = Builder(execTick: execTick, thread: threadID)
        builder.records = xpcproxyLaunch(execTick: execTick, random: &random)
        var clock = appExec(&builder, random: &random)
        let mainHeader = loadAddress(0)
        let launch = builder.begin(.dyldLaunchExecutable, atUs: clock, arg2: mainHeader)
        // A real capture carries some images' UUID maps twice: the executable's here.
        builder.uuidMap(plan.images.first, loadAddress: mainHeader, atUs: clock)
        builder.uuidMap(plan.images.first, loadAddress: mainHeader, atUs: clock)
        // Shared-cache images are not mapped, but their UUID maps name their initializers.
        let initializers = initializers()
        var named = Set<UInt64>()
        for initializer in initializers where initializer.header >= Self.sharedCacheBase {
            if named.insert(initializer.header).inserted {
                builder.uuidMap(initializer.image, loadAddress: initializer.header, atUs: clock)
            }
        }
        clock += 10
        clock = loadDylibs(&builder, from: clock)
        clock = fixUpAndInitialize(&builder, initializers, from: clock)
        builder.end(launch, atUs: clock, arg4: dyldLaunchMode)
        let mainUs = clock
        uikitLifecycle(&builder, mainUs: mainUs)
        // UIKit's Initial Frame Rendering ends with the first frame (the code is unverified on iOS 17–26).
        if let frame = plan.firstFrameMs {
            clock = max(clock + 10, UInt64(frame * 1000))
            builder.point(Self.frameEnd, atUs: clock, args: (0, 0, 0, 0))
        }
        // The page faults from dyld's start to the first frame, on draws of their own (the other events' draws
        // stay as they were).
        var faultRandom = SeededRandom(seed: 0xFA_17, parts: [String(plan.pid), String(plan.launchNumber)])
        let faults = KdebugPageFaults(
            cold: plan.kind == .cold, imageAddresses: (0..<plan.appImageCount).map(loadAddress), thread: threadID)
        builder.records += faults.records(
            faults.faults(random: &faultRandom), fromUs: 600, toUs: max(clock, mainUs), execTick: execTick)
        // In time order, as one CPU's buffer holds them (equal times keep their order: UUID_MAP_A before _B).
        builder.records = builder.records.enumerated().sorted {
            ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset)
        }.map(\.element)

        // A process that died before main emitted only what came before its end.
        switch plan.ending {
        case .signal, .stop:
            guard plan.endsAtMs * 1000 < Double(clock) else { break }
            let cutUs = UInt64(max(0, plan.endsAtMs * 1000))
            let lastTick = execTick &+ cutUs * Self.ticksPerMicrosecond
            return Timeline(records: builder.records.filter { $0.timestamp <= lastTick }, endMs: Double(cutUs) / 1000)
        case .exit, .running: break
        }
        return Timeline(records: builder.records, endMs: Double(clock) / 1000)
    }

    /// UIKit's lifecycle codes after main, as py-ios-device's table reads them (`UIKitLifecycle` cites it):
    /// UIKit initialization (90, arg1 0x32), scene creation (21), will/didFinishLaunching (23/24, 25/26, the
    /// end at the plan's didFinishLaunching), the scene's connection and foreground (300/301, 312/313), then
    /// Initial Frame Rendering (12, 0x2B870030), which the first frame's 0x31CA0006 ends. UIKit is closed
    /// source: the function bits (none) and the gaps between codes are modelled. The plan's `uikitFrames` adds
    /// stray ENDs before the BEGIN, as some apps send on real phones (py-ios-device PR #127), spread over the
    /// second half of didFinishLaunchingWithOptions (modelled), or leaves the BEGIN out.
    private func uikitLifecycle(_ builder: inout Builder, mainUs: UInt64) {
        guard let finished = plan.didFinishLaunchingMs else { return }
        let finishedUs = max(mainUs + 60, UInt64(finished * 1000))
        let span = Double(finishedUs - mainUs)
        func code(_ code: UInt16, _ at: UInt64, arg1: UInt64 = 0) {
            builder.point(KdebugDebugID(eventClass: 0x2B, subclass: 0x87, code: code), atUs: at, args: (arg1, 0, 0, 0))
        }
        code(90, mainUs + 10, arg1: 0x32)
        for (number, fraction) in [(21, 0.3), (23, 0.4), (24, 0.45), (25, 0.5)] {
            code(UInt16(number), mainUs + UInt64(span * fraction))
        }
        let strays = plan.uikitFrames.strayEnds ?? 0
        for index in 0..<strays {
            let fraction = 0.5 + 0.5 * Double(index + 1) / Double(strays + 1)
            builder.point(Self.frameEnd, atUs: mainUs + UInt64(span * fraction), args: (0, 0, 0, 0))
        }
        code(26, finishedUs)
        guard let frame = plan.firstFrameMs else { return }
        let frameUs = max(finishedUs + 60, UInt64(frame * 1000))
        let rest = Double(frameUs - finishedUs)
        for (number, fraction) in [(300, 0.1), (301, 0.3), (312, 0.4), (313, 0.5), (12, 0.6)] {
            if number == 12 && plan.uikitFrames.begin == false { continue }
            code(UInt16(number), finishedUs + UInt64(rest * fraction))
        }
    }

    /// Initial Frame Rendering END (0x31CA0006): `DBG_IMG` (49) subclass 0xCA code 1, END.
    static let frameEnd = KdebugDebugID(
        rawValue: KdebugDebugID.initialFrameRendering.rawValue | KdebugFunction.end.rawValue)

    /// launchd spawns xpcproxy, which sets the app up and execs it in the same pid (a real iPhone capture:
    /// one pid, two TRACE_DATA_EXECs, two dyld launches, a new thread id at the second; xnu-11417.101.15
    /// `bsd/kern/kern_exec.c:2301`/`:2306` trace the exec and its name on the exec'ing thread).
    private func xpcproxyLaunch(execTick: UInt64, random: inout SeededRandom) -> [KdebugRecord] {
        let xpcproxyUs = 2000 + UInt64(random.unit() * 1500)  // modelled
        var xpcproxy = Builder(
            execTick: execTick &- min(execTick, xpcproxyUs * Self.ticksPerMicrosecond), thread: xpcproxyThread)
        xpcproxy.point(
            .traceDataNewThread, atUs: 0, args: (xpcproxyThread, UInt64(plan.pid), 0, 0), thread: Self.launchdThread)
        xpcproxy.point(.traceDataExec, atUs: 0, args: (UInt64(plan.pid), 0x100_0011, 0, 0))
        xpcproxy.name("xpcproxy", atUs: 0)
        xpcproxy.point(.dyldBootstrapStart, atUs: 300, args: (0, 0, 0, 0))
        let xpcLaunch = xpcproxy.begin(.dyldLaunchExecutable, atUs: 320, arg2: 0x1_0000_0000)
        xpcproxy.end(xpcLaunch, atUs: 1200, arg4: dyldLaunchMode)
        return xpcproxy.records
    }

    /// The app's exec with its name, dyld's BOOTSTRAP_START and, on a first launch, the closure build.
    /// Returns where LAUNCH_EXECUTABLE starts (µs after exec).
    private func appExec(_ builder: inout Builder, random: inout SeededRandom) -> UInt64 {
        let executable = plan.images.first?.path ?? "/private/var/containers/Bundle/Application/App.app/App"
        let processName = String(executable.split(separator: "/").last ?? "App")
        builder.point(.traceDataExec, atUs: 0, args: (UInt64(plan.pid), 0x100_0011, 0, 0))
        builder.name(processName, atUs: 0)
        var clock = 600 + UInt64(random.unit() * 900)  // exec → dyld's first instruction (modelled)
        builder.point(.dyldBootstrapStart, atUs: clock, args: (0, 0, 0, 0))
        clock += 40
        if buildsClosure && !dyld2 {  // the dyld2 path uses no launch closure
            let closure = 900 + UInt64(random.unit() * 1500)
            builder.interval(.dyldBuildClosure, from: clock, durationUs: closure, args: (0, 0, 0, 1))
            clock += closure + 20
        }
        return clock
    }

    /// Dylib loading: the app's embedded images. The kernel mapped the executable (dyld-1042.1
    /// `JustInTimeLoader.cpp:1212` makeLaunchLoader takes it as it is) and the shared cache's are not mapped
    /// one by one. Each map attaches its code signature inside its own timer (dyld-1042.1 `Loader.cpp:1144`
    /// MAP_IMAGE, `:1174` ATTACH_CODESIGNATURE; dyld-832.7.3 `dyld3/Loading.cpp:422`/`:500`); dyld-940…960's
    /// attach timer is an unnamed temporary that ends at once (dyld-940 `Loader.cpp:969`).
    /// Returns the clock after the last image.
    private func loadDylibs(_ builder: inout Builder, from start: UInt64) -> UInt64 {
        var clock = start
        let embedded = Array(plan.images.prefix(plan.appImageCount).enumerated().dropFirst())
        let shares = Self.split(plan.phases.dylibLoadingUs, into: embedded.count)
        for ((index, image), share) in zip(embedded, shares) where dyld2 {
            // dyld2 times no MAP_IMAGE, and its code-signature timer is a temporary (dyld-832.7.3
            // `src/ImageLoaderMachO.cpp:1134`).
            builder.interval(.dyldAttachCodeSignature, from: clock + share / 4, durationUs: 0, args: (0, 0, 0, 0))
            builder.uuidMap(image, loadAddress: loadAddress(index), atUs: clock + share)
            clock += share + 5
        }
        for ((index, image), share) in zip(embedded, shares) where !dyld2 {
            let path = builder.string(image.path, for: .dyldMapImage, atUs: clock)
            let map = builder.begin(.dyldMapImage, atUs: clock, arg2: path)
            let attach = share / 4
            builder.interval(
                .dyldAttachCodeSignature, from: clock + attach, durationUs: zeroLengthTimers ? 0 : share / 2,
                args: (0, 0, 0, 0))
            builder.end(map, atUs: clock + share)
            builder.uuidMap(image, loadAddress: loadAddress(index), atUs: clock + share, path: path)
            clock += share + 5
        }
        return clock
    }

    /// APPLY_FIXUPS, then one STATIC_INITIALIZER per initializer. Returns the clock after the last.
    private func fixUpAndInitialize(
        _ builder: inout Builder, _ initializers: [Initializer], from start: UInt64
    ) -> UInt64 {
        var clock = start
        // dyld2's fixups timer is a temporary too (dyld-832.7.3 `src/ImageLoader.cpp:522`).
        builder.interval(
            .dyldApplyFixups, from: clock, durationUs: zeroLengthTimers || dyld2 ? 0 : plan.phases.rebaseBindingUs,
            args: (0, 0, 0, 0))
        clock += plan.phases.rebaseBindingUs + 5
        // No OBJC_MAP on any path: libobjc gets the launch's images when it registers, from libSystem's
        // initializer, untimed (dyld-1042.1 `DyldRuntimeState.cpp:1614`, dyld-832.7.3
        // `dyld3/AllImages.cpp:1410`); that time is in libSystem's initializer below.
        // START arg2 = the image's mach header, arg3 = the function (dyld-1378 `dyld/Loader.cpp:2601`,
        // `dyld/Tracing.cpp:142`; `InitializerAddress` in the core cites each dyld).
        for initializer in initializers {
            builder.interval(
                .dyldStaticInitializer, from: clock,
                durationUs: zeroLengthTimers || dyld3 || dyld2 ? 0 : initializer.us,
                args: (0, initializer.header, initializer.pointer, 0))
            clock += initializer.us + 2
        }
        return clock
    }

    /// dyld-940…960 (iOS 15): fixups, initializers and the code-signature attach end as they start.
    private var zeroLengthTimers: Bool { osVersion.major == 15 }

    /// dyld4 (iOS 15 and later): libobjc gets the images loaded at launch when it registers its callbacks,
    /// from libSystem's initializer, and dyld does not time that under OBJC_MAP (dyld-1042.1
    /// `DyldRuntimeState.cpp:1614` setObjCNotifiers; the timed map_images at `:1378` is for later loads).
    var dyld4: Bool { osVersion.major >= 15 }

    /// dyld3: iOS 13–14 without an override variable, which runs each initializer under an unnamed timer
    /// that ends at once (dyld-832.7.3 `dyld3/AllImages.cpp:1672`).
    var dyld3: Bool { !dyld4 && osVersion.major >= 13 && !plan.takesDyld2Path }

    /// dyld2: iOS ≤ 14 with an override variable. Its initializer, fixups and code-signature timers are
    /// temporaries that end at once (dyld-832.7.3 `src/ImageLoaderMachO.cpp:2268`, `src/ImageLoader.cpp:522`,
    /// `src/ImageLoaderMachO.cpp:1134`), it times no MAP_IMAGE and no ObjC work.
    var dyld2: Bool { !dyld4 && plan.takesDyld2Path }

    /// LAUNCH_EXECUTABLE END's arg4: dyld4 writes 4 (dyld-940 `dyldMain.cpp:747`, dyld-1042.1 `:822`), dyld3
    /// 3 (dyld-832.7.3 `src/dyld2.cpp:6076`), dyld2 2 (`:7100`).
    var dyldLaunchMode: UInt64 { dyld4 ? 4 : dyld3 ? 3 : 2 }

    /// xpcproxy's thread, before the exec that becomes the app's.
    var xpcproxyThread: UInt64 { threadID - 8 }

    /// One STATIC_INITIALIZER: the image, its load address, the time, and the function pointer dyld traces.
    typealias Initializer = (image: LoadedImage, header: UInt64, us: UInt64, pointer: UInt64)

    /// Each printed initializer in its image, then the rest of the phase in libSystem, so the intervals add
    /// up to the phase dyld prints; libSystem's also holds ObjC's setup of the launch's images.
    private func initializers() -> [Initializer] {
        func located(_ name: String) -> (image: LoadedImage, header: UInt64) {
            if let index = plan.images.firstIndex(where: { $0.path.hasSuffix("/" + name) }) {
                return (plan.images[index], loadAddress(index))
            }
            let slot = name.utf8.reduce(UInt64(0)) { ($0 &* 31 &+ UInt64($1)) % 4093 }  // stable per name
            return (LoadedImage(path: "/usr/lib/" + name), Self.sharedCacheBase + (64 + slot) * 0x10_0000)
        }
        var out: [Initializer] = []
        for initializer in plan.phases.initializers {
            let (image, header) = located(initializer.image)
            out += calls(initializer, image: image, header: header)
        }
        let listed = out.reduce(0) { $0 + $1.us }
        let objc = plan.phases.objcSetupUs
        if plan.phases.initializerUs + objc > listed {
            let (image, header) = located("libSystem.B.dylib")
            // libSystem's initializer lies somewhere in the shared cache: its offset is modelled.
            out.append((image, header, plan.phases.initializerUs + objc - listed, header + 0x4000))
        }
        return out
    }

    /// An image's initializer time as dyld runs it: one call per initializer its binary lists, in that order
    /// (dyld-1378 `dyld/Loader.cpp:2596` forEachInitializer), sharing the time equally (the profile times
    /// images, not functions), or all of it in the one function the profile names. An image whose binary the
    /// emulator could not read (outside the bundle, a placeholder) gets one call at a modelled offset.
    private func calls(_ initializer: PreMainPhases.Initializer, image: LoadedImage, header: UInt64) -> [Initializer] {
        guard let inside = image.pathInsideAppBundle, let binary = plan.binaries[inside],
            let offsets = binary.initializerOffsets, !offsets.isEmpty
        else { return [(image, header, initializer.us, header + 0x4000)] }
        if let function = initializer.function,
            let symbol = binary.symbols.first(where: { $0.name == function && offsets.contains($0.offset) })
        {
            return [(image, header, initializer.us, traced(header + symbol.offset, binary))]
        }
        return zip(offsets, Self.split(initializer.us, into: offsets.count)).map { offset, us in
            (image, header, us, traced(header + offset, binary))
        }
    }

    /// The pointer as dyld traces it: signed in an arm64e process by dyld-955 through dyld-1284 (iOS 15–18),
    /// which sign it before the timer (dyld-1284.13 `dyld/Loader.cpp:2485`/`:2487`), plain otherwise (iOS 26's
    /// dyld-1378 traces before signing, `:2600`; an arm64 process's pointers carry no signature). The
    /// signature is a stable stand-in in the bits above the 39 user address bits.
    private func traced(_ address: UInt64, _ binary: MachOFile) -> UInt64 {
        guard binary.isArm64e, (15...18).contains(osVersion.major) else { return address }
        let signature = (address &* 0x9E37_79B9_7F4A_7C15) >> 48
        return address | (signature << 39) & 0x007F_FF80_0000_0000
    }

    /// Where image `index` of the plan is loaded: the app's images below the shared cache, system images in
    /// it (fixed addresses: the emulator has no ASLR slide).
    func loadAddress(_ index: Int) -> UInt64 {
        index < plan.appImageCount
            ? 0x1_0000_0000 + UInt64(index) * 0x10_0000 : Self.sharedCacheBase + UInt64(index) * 0x10_0000
    }

    /// Where the dyld shared cache starts in the emulated address space.
    static let sharedCacheBase: UInt64 = 0x1_8000_0000

    /// `total` split into `count` near-equal parts that add up to it exactly.
    static func split(_ total: UInt64, into count: Int) -> [UInt64] {
        guard count > 0 else { return [] }
        let part = total / UInt64(count)
        return (0..<count).map { $0 == count - 1 ? total - part * UInt64(count - 1) : part }
    }
}

/// Accumulates records on one thread, with dyld's trace-pair ids and the kernel's string ids.
private struct Builder {
    let execTick: UInt64
    let thread: UInt64
    var records: [KdebugRecord] = []
    private var pairID: UInt64 = 0x40
    private var stringID: UInt64 = 0x100

    init(execTick: UInt64, thread: UInt64) {
        self.execTick = execTick
        self.thread = thread
    }

    private func tick(_ us: UInt64) -> UInt64 { execTick &+ us &* KdebugLaunchEvents.ticksPerMicrosecond }

    mutating func point(
        _ id: KdebugDebugID, atUs us: UInt64, args: (UInt64, UInt64, UInt64, UInt64), thread: UInt64? = nil
    ) {
        records.append(record(id, at: us, args: args, thread: thread ?? self.thread))
    }

    mutating func begin(_ id: KdebugDebugID, atUs us: UInt64, arg2: UInt64) -> (KdebugDebugID, UInt64) {
        pairID += 1
        records.append(record(with(id, .start), at: us, args: (pairID, arg2, 0, 0)))
        return (id, pairID)
    }

    mutating func end(_ interval: (KdebugDebugID, UInt64), atUs us: UInt64, arg4: UInt64 = 0) {
        records.append(record(with(interval.0, .end), at: us, args: (interval.1, 0, 0, arg4)))
    }

    mutating func interval(
        _ id: KdebugDebugID, from us: UInt64, durationUs: UInt64, args: (UInt64, UInt64, UInt64, UInt64)
    ) {
        pairID += 1
        records.append(record(with(id, .start), at: us, args: (pairID, args.1, args.2, args.3)))
        records.append(record(with(id, .end), at: us + durationUs, args: (pairID, 0, 0, 0)))
    }

    /// The process name as exec records it (TRACE_STRING_EXEC: up to 32 bytes).
    mutating func name(_ name: String, atUs us: UInt64) {
        let words = Self.words(Array(name.utf8.prefix(31)), count: 4)
        records.append(record(.traceStringExec, at: us, args: (words[0], words[1], words[2], words[3])))
    }

    /// A TRACE_STRING_GLOBAL string for event `id`: 16 bytes in the first record, 32 in each next one.
    /// Returns its string id.
    mutating func string(_ text: String, for id: KdebugDebugID, atUs us: UInt64) -> UInt64 {
        stringID += 1
        let bytes = Array(text.utf8)
        let first = Self.words(Array(bytes.prefix(16)), count: 2)
        let rest = Array(bytes.dropFirst(16))
        let global = KdebugDebugID.traceStringGlobal
        records.append(
            record(
                with(global, rest.isEmpty ? .startAndEnd : .start), at: us,
                args: (UInt64(id.rawValue), stringID, first[0], first[1])))
        var offset = 0
        while offset < rest.count {
            let words = Self.words(Array(rest[offset..<min(offset + 32, rest.count)]), count: 4)
            offset += 32
            records.append(
                record(
                    with(global, offset >= rest.count ? .end : .none), at: us,
                    args: (words[0], words[1], words[2], words[3])))
        }
        return stringID
    }

    /// UUID_MAP_A (UUID, load address, fsid) and UUID_MAP_B (file id, path string id) for `image`.
    mutating func uuidMap(_ image: LoadedImage?, loadAddress: UInt64, atUs us: UInt64, path: UInt64? = nil) {
        guard let image else { return }
        let uuid = UUID(uuidString: image.uuid ?? "")?.uuid
        let bytes = uuid.map { withUnsafeBytes(of: $0) { Array($0) } } ?? [UInt8](repeating: 0, count: 16)
        let words = Self.words(bytes, count: 2)
        let pathID = path ?? string(image.path, for: .dyldUUIDMapB, atUs: us)
        records.append(record(.dyldUUIDMapA, at: us, args: (words[0], words[1], loadAddress, 0x100_0011)))
        records.append(record(.dyldUUIDMapB, at: us, args: (0x1_0000_4242, pathID, 0, 0)))
    }

    private func with(_ id: KdebugDebugID, _ function: KdebugFunction) -> KdebugDebugID {
        KdebugDebugID(rawValue: id.eventID.rawValue | function.rawValue)
    }

    private func record(
        _ id: KdebugDebugID, at us: UInt64, args: (UInt64, UInt64, UInt64, UInt64), thread: UInt64? = nil
    ) -> KdebugRecord {
        KdebugRecord(
            timestamp: tick(us), debugID: id, args: [args.0, args.1, args.2, args.3], threadID: thread ?? self.thread)
    }

    /// `bytes` zero-padded into `count` little-endian 64-bit words.
    private static func words(_ bytes: [UInt8], count: Int) -> [UInt64] {
        let padded = bytes + [UInt8](repeating: 0, count: max(0, count * 8 - bytes.count))
        return (0..<count).map { word in
            (0..<8).reduce(UInt64(0)) { $0 | UInt64(padded[word * 8 + $1]) << (8 * UInt64($1)) }
        }
    }
}
