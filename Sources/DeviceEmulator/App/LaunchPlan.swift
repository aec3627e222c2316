import Foundation
import LaunchBench

/// Everything one launch of the emulated app will do, decided up front (so tests can inspect it):
/// output chunks at emulated times, then how it ends.
package struct LaunchPlan: Sendable {
    /// One write by the process (dyld or app), at `atMs` emulated ms after process start.
    package struct Output: Sendable, Hashable {
        package var atMs: Double
        package var bytes: [UInt8]
    }

    /// How the process ends, as debugserver reports it.
    package enum Ending: Sendable, Hashable {
        /// `W<status>`.
        case exit(status: Int)
        /// `X<signal>`: killed by a signal.
        case signal(Int)
        /// `T<signal>…`: stopped (crash under the debugger); the process waits to be killed.
        case stop(signal: Int)
        /// Runs on (prints nothing more, never exits) until killed.
        case running
    }

    package var kind: LaunchKindName
    /// 1-based launch number of this bundle on this device since the lab started.
    package var launchNumber: Int
    package var pid: Int
    package var outputs: [Output]
    package var ending: Ending
    /// When the ending happens (emulated ms); meaningless for `.running`.
    package var endsAtMs: Double
    /// The figures after noise (what dyld and the markers report).
    package var counters: DyldCounters
    /// The same pre-main phases as dyld times them for the kernel trace (kdebug), before dyld's printing
    /// bookkeeping: they equal what the statistics lines print.
    package var phases: PreMainPhases
    /// The images dyld loads: the executable, then the app bundle's images, then system images.
    package var images: [LoadedImage]
    /// How many of `images` come from the app (the executable and its bundle's images).
    package var appImageCount: Int
    package var markers: [(name: String, ms: Double)]
    /// When the app draws its first frame (emulated ms after process start), whether or not it prints a
    /// marker for it; `nil` when a fault ends or stops the launch before.
    package var firstFrameMs: Double?
    /// When `application(_:didFinishLaunchingWithOptions:)` returns (emulated ms after process start), whether
    /// or not the app prints a marker for it: UIKit's lifecycle code 26 (`KdebugLaunchEvents`).
    package var didFinishLaunchingMs: Double?
    /// Whether dyld takes its classic (dyld2) path, as an override variable makes it on iOS 13–14; the kernel
    /// trace's shapes differ by path (`KdebugLaunchEvents`).
    package var takesDyld2Path = false
    /// How UIKit sends Initial Frame Rendering's events this launch (`UIKitFrameEvents`).
    package var uikitFrames = UIKitFrameEvents()
    /// The app's binaries by path inside the bundle (`InstalledApp.binaries`): their static initializers are
    /// what STATIC_INITIALIZER points at.
    package var binaries: [String: MachOFile] = [:]

    /// All output as one byte string (tests, logs).
    package var allOutput: [UInt8] { outputs.flatMap(\.bytes) }
}

/// Turns a profile, a device and a launch request into a `LaunchPlan`.
package struct LaunchPlanner: Sendable {
    package var productType: String
    package var osVersion: OSVersion
    package var udid: String
    /// The lab's seed; the profile's own `seed` wins (the device's run offset and drift always use this one).
    package var labSeed: UInt64
    /// Where the launch stands on its device (start, launches since), for the run offset and the drift of
    /// `PhoneVariation`; without it only the launch's own variation applies.
    package var device: DeviceMoment?

    package init(productType: String, osVersion: OSVersion, udid: String, labSeed: UInt64) {
        self.productType = productType
        self.osVersion = osVersion
        self.udid = udid
        self.labSeed = labSeed
    }

    /// The default system images dyld reports (a small realistic subset).
    package static let defaultSystemImages = [
        "/usr/lib/libSystem.B.dylib", "/usr/lib/libobjc.A.dylib", "/usr/lib/libc++.1.dylib",
        "/usr/lib/system/libdyld.dylib", "/usr/lib/system/libdispatch.dylib",
        "/System/Library/Frameworks/Foundation.framework/Foundation",
        "/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation",
        "/System/Library/Frameworks/UIKit.framework/UIKit",
        "/System/Library/Frameworks/QuartzCore.framework/QuartzCore",
        "/System/Library/Frameworks/CoreGraphics.framework/CoreGraphics",
    ]

    /// Plans launch number `launchNumber` (cold or warm) of `app` with `environment`, in the order a launch
    /// happens: pre-main, the app's markers, dyld's output, the app's output, then the faults that cut it.
    package func plan(app: InstalledApp, environment: [String: String], kind: LaunchKindName, launchNumber: Int)
        -> LaunchPlan
    {
        let draws = Draws(seed: app.profile.seed ?? labSeed, parts: [udid, app.bundleID], launchNumber: launchNumber)
        let profile = app.profile
        let changes = profile.activeChanges(launchNumber: launchNumber, build: app.version)
        let nominal = changes.reduce(profile.timings(productType: productType, kind: kind).withDerivedMarkers()) {
            $1.apply(to: $0)
        }.scaled(by: variationFactor(profile: profile, draws: draws) * (device?.thermalFactor ?? 1))
        let bundleImages = app.bundleImages + changes.flatMap { $0.addBundleImages ?? [] }
        let faults = profile.faults ?? Faults()
        // One noise sequence for pre-main and after-main, drawn in that order.
        var noise = draws.random("noise")
        let sd = profile.noise ?? 0.05
        let preMain = preMainPhases(
            nominal, bundleImageCount: bundleImages.count, faults: faults, noise: &noise, sd: sd, kind: kind,
            draws: draws)
        let (markers, renderedAt, finishedAt) = plannedMarkers(
            nominal, after: preMain.totalMs, noise: &noise, sd: sd, profile: profile)

        var pidRandom = draws.random("pid")
        let pid = 200 + Int(pidRandom.next() % 9000)
        let images = loadedImages(app: app, profile: profile, bundleImages: bundleImages)
        var outputs = dyldOutputs(
            images: images, preMain: preMain, environment: environment, pid: pid, faults: faults, kind: kind,
            draws: draws)
        let written = appOutputs(markers: markers, preMainMs: preMain.totalMs, profile: profile)
        outputs += written.outputs
        var ending = written.ending
        var endsAt = written.endsAtMs

        let cut = faultCut(faults, points: written.points, preMainMs: preMain.totalMs, kind: kind, draws: draws)
        if let cut {
            outputs.removeAll { $0.atMs > cut.atMs }
            ending = cut.ending
            endsAt = cut.atMs
        }
        outputs += garbage(faults, after: outputs.map(\.atMs).max() ?? preMain.totalMs, kind: kind, draws: draws)
        // A fault that strikes before the first frame means it is never drawn.
        var firstFrame = renderedAt
        if let cut, let frame = renderedAt, frame > cut.atMs { firstFrame = nil }
        var finished = finishedAt
        if let cut, let at = finishedAt, at > cut.atMs { finished = nil }
        // Stable order: by time, dyld's and the app's writes keep their sequence at equal times.
        outputs = outputs.enumerated().sorted { ($0.element.atMs, $0.offset) < ($1.element.atMs, $1.offset) }.map(
            \.element)
        var plan = LaunchPlan(
            kind: kind, launchNumber: launchNumber, pid: pid, outputs: outputs, ending: ending, endsAtMs: endsAt,
            counters: preMain.counters, phases: preMain.phases, images: images,
            appImageCount: 1 + bundleImages.count, markers: markers, firstFrameMs: firstFrame,
            takesDyld2Path: DyldOutput(osVersion: osVersion, environment: environment).usesDyld2Path)
        plan.didFinishLaunchingMs = finished
        plan.uikitFrames = (profile.uikitFrames ?? UIKitFrameEvents()).over(device?.uikitFrames)
        plan.binaries = app.binaries
        return plan
    }

    /// The factor `PhoneVariation` puts on this launch's nominal figures (1 when the profile and the
    /// emulator set none): the device's offset and drift at this moment times the launch's own.
    private func variationFactor(profile: AppProfile, draws: Draws) -> Double {
        let variation = (profile.variation ?? PhoneVariation()).over(device?.variation)
        guard !variation.isNone else { return 1 }
        var log = variation.launchLog(noise: draws.random("launch-noise"), background: draws.random("background"))
        if let device {
            log +=
                variation.deviceLogs(seed: labSeed, udid: udid, start: device.start, count: max(1, device.launch))
                .last ?? 0
        }
        return exp(log)
    }

    /// The seeded draws of one launch: each purpose has a sequence of its own, so a fault's draw never
    /// shifts the noise.
    struct Draws {
        let seed: UInt64
        let parts: [String]
        let launchNumber: Int

        func random(_ purpose: String) -> SeededRandom {
            SeededRandom(seed: seed, parts: parts + [purpose, String(launchNumber)])
        }
    }

    /// Pre-main as dyld times and prints it: the phases with noise (the initializer list scaled with its
    /// phase) and dyld's counters.
    struct PreMain {
        var dylibLoadingMs: Double
        var counters: DyldCounters
        var phases: PreMainPhases
        /// Process start to `main`, as the counters add up.
        var totalMs: Double { Double(counters.preMainUs) / 1000 }
    }

    private func preMainPhases(
        _ nominal: LaunchTimings, bundleImageCount: Int, faults: Faults, noise: inout SeededRandom, sd: Double,
        kind: LaunchKindName, draws: Draws
    ) -> PreMain {
        let dylib = noise.jitter(nominal.dylibLoadingMs, sd: sd)
        let rebase = noise.jitter(nominal.rebaseBindingMs, sd: sd)
        let objc = noise.jitter(nominal.objcSetupMs, sd: sd)
        let initializers = noise.jitter(nominal.initializerMs, sd: sd)
        let initScale = nominal.initializerMs > 0 ? initializers / nominal.initializerMs : 1
        let list = (nominal.slowestInitializers ?? []).map { ($0.image, $0.ms * initScale) }
        var bookkeeping = draws.random("dyld")
        let wrap = strikes(faults.dyldWrap, "dyldWrap", kind: kind, draws: draws)
        let counters = DyldCounters.make(
            dylibLoadingMs: dylib, rebaseBindingMs: rebase, objcSetupMs: objc, initializerMs: initializers,
            initializers: list, bundleImageCount: bundleImageCount, legacy: osVersion.major <= 9,
            wrapRebaseBinding: wrap, random: &bookkeeping)
        var phases = PreMainPhases(
            dylibLoadingMs: dylib, rebaseBindingMs: rebase, objcSetupMs: objc, initializerMs: initializers,
            initializers: list)
        for (index, figure) in (nominal.slowestInitializers ?? []).enumerated() where index < phases.initializers.count
        {
            phases.initializers[index].function = figure.function
        }
        return PreMain(dylibLoadingMs: dylib, counters: counters, phases: phases)
    }
    /// The app's markers: the nominal gaps after `main`, noised, stacked on the noised pre-main so their order
    /// always holds; those the profile does not print are dropped. Also when the first frame is drawn (printed
    /// or not).
    private func plannedMarkers(
        _ nominal: LaunchTimings, after preMainMs: Double, noise: inout SeededRandom, sd: Double, profile: AppProfile
    ) -> (markers: [(name: String, ms: Double)], renderedAtMs: Double?, finishedAtMs: Double?) {
        let filled = nominal.withDerivedMarkers()
        let gaps: [(String, Double)] = [
            ("main", (filled.mainMs ?? 0) - nominal.preMainMs),
            ("didFinishLaunching", (filled.didFinishLaunchingMs ?? 0) - (filled.mainMs ?? 0)),
            ("firstFrame", (filled.firstFrameMs ?? 0) - (filled.didFinishLaunchingMs ?? 0)),
        ]
        var markers: [(name: String, ms: Double)] = []
        var clock = preMainMs
        for (name, gap) in gaps {
            clock += noise.jitter(max(gap, 0.1), sd: sd)
            markers.append((name, clock))
        }
        let renderedAt = markers.first { $0.name == "firstFrame" }?.ms
        let wanted = profile.markers ?? ["main", "didFinishLaunching", "firstFrame"]
        let printed = wanted.map { name in
            markers.first { $0.name == name } ?? (name, (markers.last?.ms ?? preMainMs) + 1)
        }
        return (printed, renderedAt, markers.first { $0.name == "didFinishLaunching" }?.ms)
    }

    /// What dyld writes: `DYLD_PRINT_LIBRARIES` lines spread over the dylib-loading phase, then the statistics
    /// at `main` (after an unterminated app line when that fault strikes).
    private func dyldOutputs(
        images: [LoadedImage], preMain: PreMain, environment: [String: String], pid: Int, faults: Faults,
        kind: LaunchKindName, draws: Draws
    ) -> [LaunchPlan.Output] {
        let dyld = DyldOutput(osVersion: osVersion, environment: environment)
        var outputs: [LaunchPlan.Output] = []
        let libraryLines = dyld.libraryLines(images, pid: pid)
        for (index, line) in libraryLines.enumerated() {
            let at = preMain.dylibLoadingMs * Double(index + 1) / Double(libraryLines.count + 1)
            outputs.append(.init(atMs: at, bytes: Array((line + "\n").utf8)))
        }
        let statistics = dyld.statisticsLines(preMain.counters)
        guard !statistics.isEmpty else { return outputs }
        if let glued = faults.unterminatedOutput, strikes(glued.when, "unterminatedOutput", kind: kind, draws: draws) {
            outputs.append(.init(atMs: preMain.totalMs, bytes: Array((glued.text ?? "Loading…").utf8)))
        }
        outputs.append(.init(atMs: preMain.totalMs, bytes: Array(statistics.map { $0 + "\n" }.joined().utf8)))
        return outputs
    }

    /// What the app writes when nothing goes wrong: its markers, then `done`, then (maybe) its exit; and the
    /// points in time a fault may strike after.
    private func appOutputs(markers: [(name: String, ms: Double)], preMainMs: Double, profile: AppProfile) -> (
        outputs: [LaunchPlan.Output], points: [(name: String, ms: Double)], ending: LaunchPlan.Ending,
        endsAtMs: Double
    ) {
        var outputs: [LaunchPlan.Output] = []
        var points: [(name: String, ms: Double)] = [("start", 0.5), ("dyld", preMainMs)]
        for marker in markers {
            outputs.append(
                .init(
                    atMs: marker.ms,
                    bytes: Array(LaunchMarkerFormat.markerLine(name: marker.name, milliseconds: marker.ms).utf8)))
            points.append(marker)
        }
        let doneAt = (markers.last?.ms ?? preMainMs) + 0.2
        if profile.printsDone ?? true {
            outputs.append(.init(atMs: doneAt, bytes: Array(LaunchMarkerFormat.doneLine.utf8)))
            points.append(("done", doneAt))
        }
        let ending: LaunchPlan.Ending = (profile.exitAfterDone ?? true) ? .exit(status: 0) : .running
        return (outputs, points, ending, doneAt + 2)
    }

    /// The first fault that strikes this launch (a crash, then an early exit, then a hang): when it cuts the
    /// output and how the process ends.
    private func faultCut(
        _ faults: Faults, points: [(name: String, ms: Double)], preMainMs: Double, kind: LaunchKindName, draws: Draws
    ) -> (atMs: Double, ending: LaunchPlan.Ending)? {
        func pointTime(_ name: String?, default fallback: String) -> Double {
            let wantedPoint = name ?? fallback
            return points.first { $0.name == wantedPoint }?.ms ?? preMainMs
        }
        if let crash = faults.crash, strikes(crash.when, "crash", kind: kind, draws: draws) {
            let signal = crash.signal ?? 11
            return (
                pointTime(crash.after, default: "main") + 0.5,
                crash.report == "exit" ? .signal(signal) : .stop(signal: signal)
            )
        }
        if let early = faults.earlyExit, strikes(early.when, "earlyExit", kind: kind, draws: draws) {
            return (pointTime(early.after, default: "dyld") + 0.5, .exit(status: early.status ?? 1))
        }
        if let hang = faults.hang, strikes(hang.when, "hang", kind: kind, draws: draws) {
            return (pointTime(hang.after, default: "dyld") + 0.5, .running)
        }
        return nil
    }

    /// Random bytes at random times up to `lastMs`, when the garbage fault strikes.
    private func garbage(_ faults: Faults, after lastMs: Double, kind: LaunchKindName, draws: Draws)
        -> [LaunchPlan.Output]
    {
        guard let garbage = faults.garbage, strikes(garbage.when, "garbage", kind: kind, draws: draws) else {
            return []
        }
        var rng = draws.random("garbage-bytes")
        var outputs: [LaunchPlan.Output] = []
        for _ in 0..<max(0, garbage.chunks ?? 3) {
            let count = 1 + Int(rng.next() % UInt64(max(1, garbage.maxBytes ?? 24)))
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            if rng.unit() < 0.5 { bytes.append(0x0A) }
            outputs.append(.init(atMs: rng.unit() * lastMs, bytes: bytes))
        }
        return outputs
    }

    /// Whether a fault's selector picks this launch (a probability draws from the fault's own sequence).
    private func strikes(_ selector: LaunchSelector?, _ purpose: String, kind: LaunchKindName, draws: Draws) -> Bool {
        guard let selector else { return false }
        return matches(selector, kind: kind, launchNumber: draws.launchNumber, random: draws.random(purpose))
    }

    /// The images dyld reports for this app: the executable, bundle images, then system images;
    /// UUIDs derived from the path (stable across launches, new per app version).
    func loadedImages(app: InstalledApp, profile: AppProfile, bundleImages: [String]? = nil) -> [LoadedImage] {
        let own = [app.executablePath] + (bundleImages ?? app.bundleImages).map { "\(app.path)/\($0)" }
        let system = profile.systemImages ?? Self.defaultSystemImages
        return own.map {
            LoadedImage(
                path: $0,
                uuid: Self.uuid(
                    for:
                        "\(app.bundleID) \(app.version ?? "") \($0.split(separator: "/").suffix(3).joined(separator: "/"))"
                ))
        }
            + system.map { LoadedImage(path: $0, uuid: Self.uuid(for: "\(osVersion) \($0)")) }
    }

    static func uuid(for text: String) -> String {
        var rng = SeededRandom(seed: 0x5EED, parts: [text])
        let a = rng.next()
        let b = rng.next()
        let hex = String(format: "%016llX%016llX", a, b)
        let c = Array(hex)
        return
            "\(String(c[0..<8]))-\(String(c[8..<12]))-\(String(c[12..<16]))-\(String(c[16..<20]))-\(String(c[20..<32]))"
    }

    /// Whether `selector` picks launch `launchNumber` of `kind`: by kind, by number, or by a draw from `random`.
    func matches(_ selector: LaunchSelector, kind: LaunchKindName, launchNumber: Int, random: SeededRandom) -> Bool {
        if let wantedKind = selector.kind, wantedKind != kind.rawValue { return false }
        if selector.launches?.contains(launchNumber) == true { return true }
        if let probability = selector.probability {
            var rng = random
            return rng.unit() < probability
        }
        return false
    }
}

/// One launch's pre-main phases in microseconds, rounded as dyld's counters are.
package struct PreMainPhases: Sendable, Hashable {
    package var dylibLoadingUs: UInt64
    package var rebaseBindingUs: UInt64
    package var objcSetupUs: UInt64
    package var initializerUs: UInt64
    /// The initializers dyld prints by image (short name), ObjC setup not included.
    package var initializers: [Initializer]

    package struct Initializer: Sendable, Hashable {
        package var image: String
        package var us: UInt64
        /// The one initializer function of the image this time goes to (`InitializerFigure.function`); nil:
        /// the image's time is shared by all its initializers.
        package var function: String?
    }

    init(
        dylibLoadingMs: Double, rebaseBindingMs: Double, objcSetupMs: Double, initializerMs: Double,
        initializers: [(String, Double)]
    ) {
        func us(_ ms: Double) -> UInt64 { UInt64(max(0, ms * 1000).rounded()) }
        dylibLoadingUs = us(dylibLoadingMs)
        rebaseBindingUs = us(rebaseBindingMs)
        objcSetupUs = us(objcSetupMs)
        initializerUs = us(initializerMs)
        self.initializers = initializers.map { Initializer(image: $0.0, us: us($0.1)) }
    }
}
