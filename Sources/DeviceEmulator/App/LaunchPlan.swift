import Foundation
import LaunchBench

/// Everything one launch of the emulated app will do, decided up front (so tests can inspect it):
/// output chunks at emulated times, then how it ends.
public struct LaunchPlan: Sendable {
    /// One write by the process (dyld or app), at `atMs` emulated ms after process start.
    public struct Output: Sendable, Hashable {
        public var atMs: Double
        public var bytes: [UInt8]
    }

    /// How the process ends, as debugserver reports it.
    public enum Ending: Sendable, Hashable {
        /// `W<status>`.
        case exit(status: Int)
        /// `X<signal>`: killed by a signal.
        case signal(Int)
        /// `T<signal>…`: stopped (crash under the debugger); the process waits to be killed.
        case stop(signal: Int)
        /// Runs on (prints nothing more, never exits) until killed.
        case running
    }

    public var kind: LaunchKindName
    /// 1-based launch number of this bundle on this device since the lab started.
    public var launchNumber: Int
    public var pid: Int
    public var outputs: [Output]
    public var ending: Ending
    /// When the ending happens (emulated ms); meaningless for `.running`.
    public var endsAtMs: Double
    /// The figures after noise (what dyld and the markers report).
    public var counters: DyldCounters
    /// The same pre-main phases as dyld times them for the kernel trace (kdebug), before dyld's printing
    /// bookkeeping: they equal what the statistics lines print.
    public var phases: PreMainPhases
    /// The images dyld loads: the executable, then the app bundle's images, then system images.
    public var images: [LoadedImage]
    /// How many of `images` come from the app (the executable and its bundle's images).
    public var appImageCount: Int
    public var markers: [(name: String, ms: Double)]
    /// When the app draws its first frame (emulated ms after process start), whether or not it prints a
    /// marker for it; `nil` when a fault ends or stops the launch before.
    public var firstFrameMs: Double?

    /// All output as one byte string (tests, logs).
    public var allOutput: [UInt8] { outputs.flatMap(\.bytes) }
}

/// Turns a profile, a device and a launch request into a `LaunchPlan`.
public struct LaunchPlanner: Sendable {
    public var productType: String
    public var osVersion: OSVersion
    public var udid: String
    /// The lab's seed; the profile's own `seed` wins.
    public var labSeed: UInt64

    public init(productType: String, osVersion: OSVersion, udid: String, labSeed: UInt64) {
        self.productType = productType
        self.osVersion = osVersion
        self.udid = udid
        self.labSeed = labSeed
    }

    /// The default system images dyld reports (a small realistic subset).
    public static let defaultSystemImages = [
        "/usr/lib/libSystem.B.dylib", "/usr/lib/libobjc.A.dylib", "/usr/lib/libc++.1.dylib",
        "/usr/lib/system/libdyld.dylib", "/usr/lib/system/libdispatch.dylib",
        "/System/Library/Frameworks/Foundation.framework/Foundation",
        "/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation",
        "/System/Library/Frameworks/UIKit.framework/UIKit",
        "/System/Library/Frameworks/QuartzCore.framework/QuartzCore",
        "/System/Library/Frameworks/CoreGraphics.framework/CoreGraphics",
    ]

    /// Plans launch number `launchNumber` (cold or warm) of `app` with `environment`.
    public func plan(app: InstalledApp, environment: [String: String], kind: LaunchKindName, launchNumber: Int)
        -> LaunchPlan
    {
        let profile = app.profile
        let seed = profile.seed ?? labSeed
        func random(_ purpose: String) -> SeededRandom {
            SeededRandom(seed: seed, parts: [udid, app.bundleID, purpose, String(launchNumber)])
        }
        var noise = random("noise")
        let sd = profile.noise ?? 0.05
        let changes = profile.activeChanges(launchNumber: launchNumber, build: app.version)
        let nominal = changes.reduce(profile.timings(productType: productType, kind: kind).withDerivedMarkers()) {
            $1.apply(to: $0)
        }
        let bundleImages = app.bundleImages + changes.flatMap { $0.addBundleImages ?? [] }

        // Pre-main phases with noise; initializer list scaled with its phase.
        let dylib = noise.jitter(nominal.dylibLoadingMs, sd: sd)
        let rebase = noise.jitter(nominal.rebaseBindingMs, sd: sd)
        let objc = noise.jitter(nominal.objcSetupMs, sd: sd)
        let initializers = noise.jitter(nominal.initializerMs, sd: sd)
        let initScale = nominal.initializerMs > 0 ? initializers / nominal.initializerMs : 1
        let list = (nominal.slowestInitializers ?? []).map { ($0.image, $0.ms * initScale) }
        var bookkeeping = random("dyld")
        let wrap =
            profile.faults?.dyldWrap.map {
                matches($0, kind: kind, launchNumber: launchNumber, random: random("dyldWrap"))
            } ?? false
        let counters = DyldCounters.make(
            dylibLoadingMs: dylib, rebaseBindingMs: rebase, objcSetupMs: objc, initializerMs: initializers,
            initializers: list, bundleImageCount: bundleImages.count, legacy: osVersion.major <= 9,
            wrapRebaseBinding: wrap, random: &bookkeeping)
        let preMain = Double(counters.preMainUs) / 1000
        let phases = PreMainPhases(
            dylibLoadingMs: dylib, rebaseBindingMs: rebase, objcSetupMs: objc, initializerMs: initializers,
            initializers: list)

        // After-main: the nominal gaps, noised, stacked on the noised pre-main so the order always holds.
        let filled = nominal.withDerivedMarkers()
        let gaps: [(String, Double)] = [
            ("main", (filled.mainMs ?? 0) - nominal.preMainMs),
            ("didFinishLaunching", (filled.didFinishLaunchingMs ?? 0) - (filled.mainMs ?? 0)),
            ("firstFrame", (filled.firstFrameMs ?? 0) - (filled.didFinishLaunchingMs ?? 0)),
        ]
        var markers: [(name: String, ms: Double)] = []
        var clock = preMain
        for (name, gap) in gaps {
            clock += noise.jitter(max(gap, 0.1), sd: sd)
            markers.append((name, clock))
        }
        let renderedAt = markers.first { $0.name == "firstFrame" }?.ms
        let wanted = profile.markers ?? ["main", "didFinishLaunching", "firstFrame"]
        markers = wanted.map { name in
            markers.first { $0.name == name } ?? (name, (markers.last?.ms ?? preMain) + 1)
        }

        var pidRandom = random("pid")
        let pid = 200 + Int(pidRandom.next() % 9000)
        let dyld = DyldOutput(osVersion: osVersion, environment: environment)
        var outputs: [LaunchPlan.Output] = []

        // DYLD_PRINT_LIBRARIES lines spread over the dylib-loading phase.
        let images = loadedImages(app: app, profile: profile, bundleImages: bundleImages)
        let libraryLines = dyld.libraryLines(images, pid: pid)
        for (index, line) in libraryLines.enumerated() {
            let at = dylib * Double(index + 1) / Double(libraryLines.count + 1)
            outputs.append(.init(atMs: at, bytes: Array((line + "\n").utf8)))
        }
        let statistics = dyld.statisticsLines(counters)
        if !statistics.isEmpty, let glued = profile.faults?.unterminatedOutput,
            matches(glued.when, kind: kind, launchNumber: launchNumber, random: random("unterminatedOutput"))
        {
            outputs.append(.init(atMs: preMain, bytes: Array((glued.text ?? "Loading…").utf8)))
        }
        if !statistics.isEmpty {
            outputs.append(.init(atMs: preMain, bytes: Array(statistics.map { $0 + "\n" }.joined().utf8)))
        }

        // App output: markers, then done, then (maybe) exit.
        var points: [(name: String, ms: Double)] = [("start", 0.5), ("dyld", preMain)]
        for marker in markers {
            outputs.append(
                .init(
                    atMs: marker.ms,
                    bytes: Array(LaunchMarkerFormat.markerLine(name: marker.name, milliseconds: marker.ms).utf8)))
            points.append(marker)
        }
        let doneAt = (markers.last?.ms ?? preMain) + 0.2
        if profile.printsDone ?? true {
            outputs.append(.init(atMs: doneAt, bytes: Array(LaunchMarkerFormat.doneLine.utf8)))
            points.append(("done", doneAt))
        }
        var ending: LaunchPlan.Ending = (profile.exitAfterDone ?? true) ? .exit(status: 0) : .running
        var endsAt = doneAt + 2

        // Faults: the first that strikes (crash, then early exit, then hang) cuts the output there.
        let faults = profile.faults ?? Faults()
        func pointTime(_ name: String?, default fallback: String) -> Double {
            let wantedPoint = name ?? fallback
            return points.first { $0.name == wantedPoint }?.ms ?? preMain
        }
        var cut: Double?
        if let crash = faults.crash,
            matches(crash.when, kind: kind, launchNumber: launchNumber, random: random("crash"))
        {
            let at = pointTime(crash.after, default: "main") + 0.5
            let signal = crash.signal ?? 11
            ending = crash.report == "exit" ? .signal(signal) : .stop(signal: signal)
            cut = at
        } else if let early = faults.earlyExit,
            matches(early.when, kind: kind, launchNumber: launchNumber, random: random("earlyExit"))
        {
            cut = pointTime(early.after, default: "dyld") + 0.5
            ending = .exit(status: early.status ?? 1)
        } else if let hang = faults.hang,
            matches(hang.when, kind: kind, launchNumber: launchNumber, random: random("hang"))
        {
            cut = pointTime(hang.after, default: "dyld") + 0.5
            ending = .running
        }
        if let cut {
            outputs.removeAll { $0.atMs > cut }
            endsAt = cut
        }
        if let garbage = faults.garbage,
            matches(garbage.when, kind: kind, launchNumber: launchNumber, random: random("garbage"))
        {
            var rng = random("garbage-bytes")
            let lastAt = outputs.map(\.atMs).max() ?? preMain
            for _ in 0..<max(0, garbage.chunks ?? 3) {
                let count = 1 + Int(rng.next() % UInt64(max(1, garbage.maxBytes ?? 24)))
                var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                if rng.unit() < 0.5 { bytes.append(0x0A) }
                outputs.append(.init(atMs: rng.unit() * lastAt, bytes: bytes))
            }
        }
        // A fault that strikes before the first frame means it is never drawn.
        var firstFrame = renderedAt
        if let cut, let frame = renderedAt, frame > cut { firstFrame = nil }
        // Stable order: by time, dyld's and the app's writes keep their sequence at equal times.
        outputs = outputs.enumerated().sorted { ($0.element.atMs, $0.offset) < ($1.element.atMs, $1.offset) }.map(
            \.element)
        return LaunchPlan(
            kind: kind, launchNumber: launchNumber, pid: pid, outputs: outputs, ending: ending, endsAtMs: endsAt,
            counters: counters, phases: phases, images: images, appImageCount: 1 + bundleImages.count,
            markers: markers,
            firstFrameMs: firstFrame)
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

    /// Markers' `t=` value: milliseconds with one decimal, as LaunchProbe prints them.
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
public struct PreMainPhases: Sendable, Hashable {
    public var dylibLoadingUs: UInt64
    public var rebaseBindingUs: UInt64
    public var objcSetupUs: UInt64
    public var initializerUs: UInt64
    /// The initializers dyld prints by image (short name), ObjC setup not included.
    public var initializers: [Initializer]

    public struct Initializer: Sendable, Hashable {
        public var image: String
        public var us: UInt64
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
