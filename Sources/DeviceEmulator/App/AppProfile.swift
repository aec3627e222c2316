import Foundation

/// What an emulated app does when launched: the schema of `launchbench-emulator.json`.
///
/// A bundle may carry this file at its top level (`Sample.app/launchbench-emulator.json`); without
/// one, `AppProfile.default` applies. Every field is optional. Times are milliseconds of *emulated*
/// time; the lab's time scale turns them into real delays, the printed numbers stay realistic.
///
/// ```json
/// {
///   "schemaVersion": 1,
///   "models": {
///     "iPhone6,1": { "cold": { "dylibLoadingMs": 150, "rebaseBindingMs": 25, "objcSetupMs": 18,
///                              "initializerMs": 37, "mainMs": 238, "didFinishLaunchingMs": 438,
///                              "firstFrameMs": 548,
///                              "slowestInitializers": [{ "image": "libSystem.B.dylib", "ms": 4 }] },
///                    "warm": { "...": "same keys" } },
///     "A12": { "cold": { "...": "..." } },
///     "default": { "cold": { "...": "..." } }
///   },
///   "noise": 0.05, "seed": 7, "exitAfterDone": true, "developmentSigned": true,
///   "variation": { "launch": 0.05, "runOffset": 0.2, "drift": 0.1, "driftLaunches": 20,
///                  "outlierProbability": 0.02, "outlierSize": 0.3 },
///   "bundleImages": ["Frameworks/SampleKit.framework/SampleKit"],
///   "faults": { "crash": { "launches": [2], "signal": 11 } },
///   "install": { "delayMs": 0 },
///   "uikitFrames": { "strayEnds": 1, "begin": true },
///   "changes": [{ "fromBuild": "35", "addBundleImages": ["Frameworks/Analytics.framework/Analytics"],
///                 "dylibLoadingMs": 70, "initializers": [{ "image": "Analytics", "ms": 40 }] }]
/// }
/// ```
package struct AppProfile: Codable, Sendable, Hashable {
    /// Always 1 for now; a newer file is rejected with a message naming the field.
    package var schemaVersion: Int?
    /// Timings keyed by `ProductType` (`iPhone6,1`), by chip (`A7`, see `ChipGeneration`), or `default`.
    /// Lookup order: exact ProductType, then the device's chip, then `default`, then the built-in
    /// figures of that chip (an empty Swift app). A missing `warm` is derived from `cold` and vice versa.
    package var models: [String: ModelTimings]?
    /// Relative standard deviation applied to every phase and after-main gap (default 0.05; 0 = none).
    package var noise: Double?
    /// A phone's wandering beyond `noise` (launch noise, run offset, drift, background work); each field
    /// absent here is the emulator's option (`launchbench emulator --run-offset …`), else none.
    package var variation: PhoneVariation?
    /// Random seed of this app's noise and faults; the lab's seed when absent.
    package var seed: UInt64?
    /// Exit with status 0 right after `[launchbench] done`, as LaunchProbe does when launched by the
    /// harness (default true). When false the app keeps running until killed.
    package var exitAfterDone: Bool?
    /// Signed for development (get-task-allow). When false debugserver refuses the launch (default true).
    package var developmentSigned: Bool?
    /// Its code signature is valid (default true). When false FrontBoard refuses every launch of it (Security),
    /// through processcontrol as through a tap.
    package var codeSignatureValid: Bool?
    /// After-main markers printed, in order (default `main`, `didFinishLaunching`, `firstFrame`).
    package var markers: [String]?
    /// Whether `[launchbench] done` follows the last marker (default true).
    package var printsDone: Bool?
    /// Images inside the bundle that dyld loads, relative to the `.app` folder (default: the entries
    /// of the bundle's `Frameworks/` folder, `X.framework` → `Frameworks/X.framework/X`).
    package var bundleImages: [String]?
    /// System images dyld loads (absolute paths); a small realistic list when absent.
    package var systemImages: [String]?
    /// Switchable misbehaviour.
    package var faults: Faults?
    /// How installation_proxy treats this bundle.
    package var install: InstallBehaviour?
    /// Changes from a given launch or build on (a new bundle dylib, a slow initializer): see `ProfileChange`.
    package var changes: [ProfileChange]?
    /// How UIKit's Initial Frame Rendering events come (stray ENDs before the BEGIN, no BEGIN): see
    /// `UIKitFrameEvents`; absent: the emulator's switch, else once and in order.
    package var uikitFrames: UIKitFrameEvents?

    package init(
        schemaVersion: Int? = 1, models: [String: ModelTimings]? = nil, noise: Double? = nil, seed: UInt64? = nil,
        exitAfterDone: Bool? = nil, developmentSigned: Bool? = nil, markers: [String]? = nil, printsDone: Bool? = nil,
        bundleImages: [String]? = nil, systemImages: [String]? = nil, faults: Faults? = nil,
        install: InstallBehaviour? = nil, changes: [ProfileChange]? = nil, variation: PhoneVariation? = nil
    ) {
        self.changes = changes
        self.variation = variation
        self.schemaVersion = schemaVersion
        self.models = models
        self.noise = noise
        self.seed = seed
        self.exitAfterDone = exitAfterDone
        self.developmentSigned = developmentSigned
        self.markers = markers
        self.printsDone = printsDone
        self.bundleImages = bundleImages
        self.systemImages = systemImages
        self.faults = faults
        self.install = install
    }

    /// No file: an empty Swift app with the built-in figures.
    package static let `default` = AppProfile()

    /// The file name looked up at the top of an installed bundle.
    package static let fileName = "launchbench-emulator.json"

    /// Reads a profile, rejecting unknown schema versions and nonsense values with a message that names them.
    package static func decode(_ data: Data) throws -> AppProfile {
        let profile: AppProfile
        do {
            profile = try JSONDecoder().decode(AppProfile.self, from: data)
        } catch {
            throw AppProfileError("\(Self.fileName) is not a valid profile: \(describe(error))")
        }
        try profile.validate()
        return profile
    }

    /// The longest time a profile may give a step: an hour of emulated time. Longer is a hang (launchbench's
    /// `--timeout` stops at an hour too), and the emulator's µs and ns counters convert it without trapping.
    static let maximumMs = 3_600_000.0

    /// Why `value` is not a time a profile may hold (negative, not finite, past `maximumMs`), or `nil`.
    static func timeProblem(_ value: Double) -> String? {
        guard value.isFinite, (0...maximumMs).contains(value) else {
            return "\(value); times must be ≥ 0 and at most \(Int(maximumMs)) ms (an hour)"
        }
        return nil
    }

    func validate() throws {
        if let version = schemaVersion, version != 1 {
            throw AppProfileError("\(Self.fileName): schemaVersion \(version) is not supported; use 1")
        }
        if let noise, !(0...1).contains(noise) {
            throw AppProfileError(
                "\(Self.fileName): noise \(noise) must be between 0 and 1 (a relative standard deviation)")
        }
        try variation?.validate(prefix: "\(Self.fileName): variation")
        try uikitFrames?.validate(prefix: "\(Self.fileName): uikitFrames")
        for (index, change) in (changes ?? []).enumerated() { try change.validate(index: index) }
        for (key, model) in models ?? [:] {
            for (kind, timings) in [("cold", model.cold), ("warm", model.warm)] {
                guard let timings else { continue }
                for (name, value) in timings.numbers {
                    if let problem = Self.timeProblem(value) {
                        throw AppProfileError("\(Self.fileName): models.\(key).\(kind).\(name) is \(problem)")
                    }
                }
            }
        }
        if let delay = install?.delayMs, let problem = Self.timeProblem(delay) {
            throw AppProfileError("\(Self.fileName): install.delayMs is \(problem)")
        }
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            let path = (context.codingPath + [key]).map(\.stringValue).joined(separator: ".")
            return "\(path) is missing"
        @unknown default:
            return "\(error)"
        }
    }
}

/// Figures of one device model: cold and warm launches.
package struct ModelTimings: Codable, Sendable, Hashable {
    package var cold: LaunchTimings?
    package var warm: LaunchTimings?

    package init(cold: LaunchTimings? = nil, warm: LaunchTimings? = nil) {
        self.cold = cold
        self.warm = warm
    }
}

/// The nominal figures of one launch kind (before noise).
package struct LaunchTimings: Codable, Sendable, Hashable {
    package var dylibLoadingMs: Double
    package var rebaseBindingMs: Double
    package var objcSetupMs: Double
    package var initializerMs: Double
    /// Initializers dyld may list, in load order, with the time dyld prints for each (part of
    /// `initializerMs`). dyld lists an image only when its raw time is ≥ 2% of the total; libSystem's raw
    /// time includes the ObjC setup, which dyld subtracts before printing.
    package var slowestInitializers: [InitializerFigure]?
    /// App markers, ms after process start (so they include pre-main). Absent = derived.
    package var mainMs: Double?
    package var didFinishLaunchingMs: Double?
    package var firstFrameMs: Double?

    /// Sum of the four pre-main phases.
    package var preMainMs: Double { dylibLoadingMs + rebaseBindingMs + objcSetupMs + initializerMs }

    var numbers: [(String, Double)] {
        [
            ("dylibLoadingMs", dylibLoadingMs), ("rebaseBindingMs", rebaseBindingMs), ("objcSetupMs", objcSetupMs),
            ("initializerMs", initializerMs), ("mainMs", mainMs ?? 0),
            ("didFinishLaunchingMs", didFinishLaunchingMs ?? 0),
            ("firstFrameMs", firstFrameMs ?? 0),
        ] + (slowestInitializers ?? []).map { ("slowestInitializers.\($0.image)", $0.ms) }
    }
}

/// One image's initializer time.
package struct InitializerFigure: Codable, Sendable, Hashable {
    package var image: String
    package var ms: Double
    /// The initializer function of `image` that takes this time (its symbol, without the C underscore), for
    /// the kernel trace; absent: the image's initializers share it. dyld's printed list times images only.
    package var function: String?
}

/// Which launches a fault hits: listed launch numbers, a probability, or both (either matches).
///
/// Launch numbers count every launch of this bundle id on this device since the lab started,
/// from 1 (reinstalling does not reset them), so `[2]` hits exactly one launch of a run.
package struct LaunchSelector: Codable, Sendable, Hashable {
    package var launches: [Int]?
    /// Chance per launch, 0…1, drawn from the seeded generator.
    package var probability: Double?
    /// Only `cold` or only `warm` launches; both when absent.
    package var kind: String?

    package init(launches: [Int]? = nil, probability: Double? = nil, kind: String? = nil) {
        self.launches = launches
        self.probability = probability
        self.kind = kind
    }
}

/// Switchable misbehaviour of the emulated app.
package struct Faults: Codable, Sendable, Hashable {
    /// Dies of a signal after the given marker (default after `main`).
    package var crash: CrashFault?
    /// Prints nothing more after the given marker (default right after the dyld output) and never exits.
    package var hang: PointFault?
    /// Exits with `status` (default 1) after the given marker (default right after the dyld output).
    package var earlyExit: ExitFault?
    /// Random bytes (invalid UTF-8 included) written between the app's lines.
    package var garbage: GarbageFault?
    /// dyld's 64-bit wrap artefact: `rebase/binding time: 411015771.6 seconds (…%)` (dyld 421–852).
    package var dyldWrap: LaunchSelector?
    /// Output without a final newline written right before dyld's statistics, which glue themselves to it.
    package var unterminatedOutput: UnterminatedOutputFault?

    package init(
        crash: CrashFault? = nil, hang: PointFault? = nil, earlyExit: ExitFault? = nil, garbage: GarbageFault? = nil,
        dyldWrap: LaunchSelector? = nil, unterminatedOutput: UnterminatedOutputFault? = nil
    ) {
        self.crash = crash
        self.hang = hang
        self.earlyExit = earlyExit
        self.garbage = garbage
        self.dyldWrap = dyldWrap
        self.unterminatedOutput = unterminatedOutput
    }
}

/// A fault that strikes at one point of the launch.
package struct PointFault: Codable, Sendable, Hashable {
    package var when: LaunchSelector
    /// `dyld` (right after dyld's output, before `main`) or a marker name; the fault strikes after it.
    package var after: String?

    package init(when: LaunchSelector, after: String? = nil) {
        self.when = when
        self.after = after
    }
}

/// A crash: `signal` (default 11, SIGSEGV). `report` `stop` (default) makes debugserver report a stop
/// (`T0b…`, the process waits to be killed, as under a debugger); `exit` reports a death by signal (`X0b`).
package struct CrashFault: Codable, Sendable, Hashable {
    package var when: LaunchSelector
    package var after: String?
    package var signal: Int?
    package var report: String?

    package init(when: LaunchSelector, after: String? = nil, signal: Int? = nil, report: String? = nil) {
        self.when = when
        self.after = after
        self.signal = signal
        self.report = report
    }
}

/// An exit with a status before the launch is complete.
package struct ExitFault: Codable, Sendable, Hashable {
    package var when: LaunchSelector
    package var after: String?
    package var status: Int?

    package init(when: LaunchSelector, after: String? = nil, status: Int? = nil) {
        self.when = when
        self.after = after
        self.status = status
    }
}

/// Garbage output: `chunks` pieces (default 3) of up to `maxBytes` random bytes (default 24).
package struct GarbageFault: Codable, Sendable, Hashable {
    package var when: LaunchSelector
    package var chunks: Int?
    package var maxBytes: Int?
}

/// `text` (default `Loading…`) written with no newline just before dyld's statistics block.
package struct UnterminatedOutputFault: Codable, Sendable, Hashable {
    package var when: LaunchSelector
    package var text: String?

    package init(when: LaunchSelector, text: String? = nil) {
        self.when = when
        self.text = text
    }
}

/// How installation_proxy treats the bundle.
package struct InstallBehaviour: Codable, Sendable, Hashable {
    /// Extra emulated time spread over the install's status messages (a slow install).
    package var delayMs: Double?
    /// Refuse the install with this error (on the selected installs, or always when `when` is absent).
    package var failure: InstallFailure?

    package init(delayMs: Double? = nil, failure: InstallFailure? = nil) {
        self.delayMs = delayMs
        self.failure = failure
    }
}

/// An installation_proxy error reply.
package struct InstallFailure: Codable, Sendable, Hashable {
    /// Error name (default `ApplicationVerificationFailed`).
    package var error: String?
    package var description: String?
    package var detail: Int?
    /// Install numbers (1-based, per bundle id and device since the lab started) or a probability.
    package var when: LaunchSelector?

    package init(error: String? = nil, description: String? = nil, detail: Int? = nil, when: LaunchSelector? = nil) {
        self.error = error
        self.description = description
        self.detail = detail
        self.when = when
    }
}

/// A profile that cannot be used, with the field at fault.
package struct AppProfileError: Error, LocalizedError, Sendable, Equatable {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var errorDescription: String? { message }
}
