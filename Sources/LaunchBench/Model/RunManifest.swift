import Foundation

/// `run.json`: what was measured, where and how. Written by the runner when a run starts
/// (without `endedAt`) and again when it ends; read by `report` and by baselines.
///
/// Readers are tolerant: every field is optional on decoding and a field of an unexpected shape
/// is dropped rather than failing the whole file, so an older or newer tool's `run.json` still
/// reports.
package struct RunManifest: Sendable, Hashable, Codable {
    /// Same as `Sample.runID` of the run's samples.
    package var runID: String?
    /// `LaunchBenchVersion.current` of the tool that measured.
    var toolVersion: String?
    /// When the run started, UTC.
    package var startedAt: Date?
    /// `nil` while the run is going on (or when the process was killed before it could finish).
    package var endedAt: Date?
    /// The computer that ran it.
    package var host: Host?
    /// The app measured, from its bundle.
    package var app: App?
    /// The options the run was started with.
    package var options: Options?
    /// The devices the run was asked to measure, as they were when it started.
    package var devices: [DeviceInfo]
    /// What became of each device (same order as `devices`); `nil` in files of older tools.
    package var deviceOutcomes: [DeviceOutcome]?
    /// `true` when the run was cancelled (Ctrl-C) before every launch was made.
    package var interrupted: Bool?
    /// An A/B run's two builds, new first (`run NEW --against BASE`); `nil` in any other run.
    package var builds: [Build]? = nil
    /// An A/B run's paired design: its first and last look (`nil` in any other run).
    package var pairedDesign: PairedSequentialVerdict? = nil

    /// A manifest; by default stamped with this tool's version and this machine.
    package init(
        runID: String? = nil, toolVersion: String? = LaunchBenchVersion.current, startedAt: Date? = nil,
        endedAt: Date? = nil, host: Host? = .current, app: App? = nil, options: Options? = nil,
        devices: [DeviceInfo] = [], deviceOutcomes: [DeviceOutcome]? = nil, interrupted: Bool? = nil
    ) {
        self.runID = runID
        self.toolVersion = toolVersion
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.host = host
        self.app = app
        self.options = options
        self.devices = devices
        self.deviceOutcomes = deviceOutcomes
        self.interrupted = interrupted
    }

    /// What became of one device in the run, and what its user should know.
    package struct DeviceOutcome: Sendable, Hashable, Codable {
        /// How a device's part of the run ended (`outcome` in run.json).
        package enum Outcome: String, Sendable, Hashable, Codable {
            /// Still being measured (the run has not ended).
            case running
            /// Every planned launch was made.
            case measured
            /// Not measured at all (e.g. iOS 17+: no debugserver); `notes` says why.
            case skipped
            /// Disappeared during the run; its later launches were not made.
            case lost
            /// Given up early (the app could not be installed, or launches kept being refused); `notes` says why.
            case stopped
            /// The run was cancelled before its launches were all made.
            case interrupted
        }

        /// The device's UDID.
        package var udid: String
        /// How its part of the run ended: `running` until the device's loop ends.
        package var outcome: Outcome = .running
        /// iOS-version caveats (where pre-main comes from) and why the device was skipped or stopped.
        package var notes: [String] = []
        /// The `LaunchEngine` that launched on the device (`nil` when none could, and in older files).
        package var engine: String?
        /// Why that engine was chosen.
        package var engineReason: String?
        /// Where the device's pre-main phases came from (`premain_source` in run.json; `nil` when none).
        package var premainSource: PremainSource?
        /// How its app was launched (`--launcher`; `nil` in older files and for devices not launched on).
        package var launcher: LaunchMethod?
        /// Why its launches ended, as the run decided it (`nil` in older files and for devices not launched on).
        package var stop: StopDecision?
        /// Its conditions over the run (`nil` in older files and for devices not launched on).
        package var conditions: DeviceConditionsRecord?
        /// Where its launches' first frames came from, each source once in the order first seen
        /// (`first_frame_source` in run.json, as in samples.jsonl; `nil` when no first frame was measured, and
        /// in older files). Two sources mean its launches measured the first frame in two ways.
        package var firstFrameSources: [FirstFrameSource]?

        /// run.json's keys. Every stored property is listed: one left out would not be written.
        enum CodingKeys: String, CodingKey {
            case udid, outcome, notes, engine, engineReason, premainSource, launcher, stop, conditions
            case firstFrameSources = "first_frame_source"
        }
    }

    /// The outcome recorded for `udid`, if any.
    package func outcome(of udid: String) -> DeviceOutcome? {
        deviceOutcomes?.first { $0.udid == udid }
    }

    /// The computer that drove the devices.
    package struct Host: Sendable, Hashable, Codable {
        /// The host name.
        package var name: String?
        /// e.g. `Linux 6.1.0` or `macOS 14.5`.
        var operatingSystem: String?
        /// The CPU architecture, e.g. `x86_64` or `arm64`.
        package var architecture: String?

        /// A host description; `current` describes this machine.
        package init(name: String? = nil, operatingSystem: String? = nil, architecture: String? = nil) {
            self.name = name
            self.operatingSystem = operatingSystem
            self.architecture = architecture
        }

        /// This machine.
        package static var current: Host {
            let info = ProcessInfo.processInfo
            #if os(macOS)
                let system = "macOS"
            #elseif os(Linux)
                let system = "Linux"
            #else
                let system = "unknown OS"
            #endif
            #if arch(arm64)
                let architecture = "arm64"
            #elseif arch(x86_64)
                let architecture = "x86_64"
            #else
                let architecture = "unknown"
            #endif
            return Host(
                name: info.hostName, operatingSystem: "\(system) \(info.operatingSystemVersionString)",
                architecture: architecture)
        }
    }

    /// The app measured.
    package struct App: Sendable, Hashable, Codable {
        /// `CFBundleIdentifier`.
        package var bundleID: String?
        /// The `.app` folder's name, e.g. `Sample.app`.
        package var name: String?
        /// `CFBundleShortVersionString`.
        package var version: String?
        /// `CFBundleVersion`.
        package var build: String?
        /// Embedded frameworks and dylibs, sorted.
        package var frameworks: [String]?

        /// An app description from its fields.
        package init(
            bundleID: String? = nil, name: String? = nil, version: String? = nil, build: String? = nil,
            frameworks: [String]? = nil
        ) {
            self.bundleID = bundleID
            self.name = name
            self.version = version
            self.build = build
            self.frameworks = frameworks
        }

        /// The description of a read bundle.
        package init(_ bundle: AppBundle) {
            self.init(
                bundleID: bundle.bundleID, name: bundle.bundleName, version: bundle.shortVersion, build: bundle.build,
                frameworks: bundle.frameworks)
        }
    }

    /// The run's options, as given (`nil` = not recorded).
    package struct Options: Sendable, Hashable, Codable {
        /// `--iterations`: cold launches per device (the most, with adaptive stopping).
        package var iterations: Int?
        /// `reinstall`, `reboot` or `none`.
        package var cold: String?
        /// Warm launches per cold one.
        package var warm: Int?
        /// `--timeout`: seconds a launch may take before it is ended.
        package var timeoutSeconds: Double?
        /// `--env` as given, in order (`NAME=VALUE`).
        package var environment: [String]?
        /// `--target-precision`: keep launching until the cold median is known within ± this many percent.
        package var targetPrecisionPercent: Double?
        /// `--max-iterations`: the most iterations per device with `--target-precision`.
        package var maxIterations: Int?
        /// Anything else worth recording, as text.
        package var other: [String: String]?

        /// Options as given; `nil` fields were not recorded.
        package init(
            iterations: Int? = nil, cold: String? = nil, warm: Int? = nil, timeoutSeconds: Double? = nil,
            environment: [String]? = nil, targetPrecisionPercent: Double? = nil, maxIterations: Int? = nil,
            other: [String: String]? = nil
        ) {
            self.iterations = iterations
            self.cold = cold
            self.warm = warm
            self.timeoutSeconds = timeoutSeconds
            self.environment = environment
            self.targetPrecisionPercent = targetPrecisionPercent
            self.maxIterations = maxIterations
            self.other = other
        }

        /// `name=value` pairs of the options that were recorded, for reports.
        var descriptions: [(name: String, value: String)] {
            var result: [(String, String)] = []
            func add(_ name: String, _ value: (some CustomStringConvertible)?) {
                if let value { result.append((name, value.description)) }
            }
            add("iterations", iterations)
            add("cold", cold)
            add("warm", warm)
            add("timeout (s)", timeoutSeconds.map(Self.trimmed))
            add("target precision (%)", targetPrecisionPercent.map(Self.trimmed))
            add("max iterations", maxIterations)
            for variable in environment ?? [] { result.append(("env", variable)) }
            for (name, value) in (other ?? [:]).sorted(by: { $0.key < $1.key }) { result.append((name, value)) }
            return result
        }

        private static func trimmed(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
    }
}

extension RunManifest {
    private enum CodingKeys: String, CodingKey {
        case runID, toolVersion, startedAt, endedAt, host, app, options, devices, deviceOutcomes, interrupted
        case builds, pairedDesign
    }

    /// Reads run.json field by field: a missing or odd value costs that value only.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        runID = try? c.decodeIfPresent(String.self, forKey: .runID)
        toolVersion = try? c.decodeIfPresent(String.self, forKey: .toolVersion)
        startedAt = try? c.decodeIfPresent(Date.self, forKey: .startedAt)
        endedAt = try? c.decodeIfPresent(Date.self, forKey: .endedAt)
        host = try? c.decodeIfPresent(Host.self, forKey: .host)
        app = try? c.decodeIfPresent(App.self, forKey: .app)
        options = try? c.decodeIfPresent(Options.self, forKey: .options)
        devices = (try? c.decodeIfPresent([Tolerant<DeviceInfo>].self, forKey: .devices))?.compactMap(\.value) ?? []
        deviceOutcomes = (try? c.decodeIfPresent([Tolerant<DeviceOutcome>].self, forKey: .deviceOutcomes))?
            .compactMap(\.value)
        interrupted = try? c.decodeIfPresent(Bool.self, forKey: .interrupted)
        builds = try? c.decodeIfPresent([Build].self, forKey: .builds)
        // Bounded as `--max-iterations` is: a hand-edited file must not make a reader trap or build a huge boundary.
        pairedDesign = (try? c.decodeIfPresent(PairedSequentialVerdict.self, forKey: .pairedDesign)).map {
            PairedSequentialVerdict(
                minimumPairs: min($0.minimumPairs, OptionCeilings.iterations),
                maxPairs: min($0.maxPairs, OptionCeilings.iterations))
        }
    }

    /// Reads `run.json` with `JSONCoding`'s settings.
    /// - Throws: `LaunchBenchError.unreadableResults` when the file is not a JSON object.
    package static func read(from url: URL) throws -> RunManifest {
        do {
            return try JSONCoding.decoder().decode(RunManifest.self, from: Data(contentsOf: url))
        } catch {
            throw LaunchBenchError.unreadableResults(
                path: url.path, reason: "run.json is not readable JSON (\(error.localizedDescription))")
        }
    }

    /// Writes `run.json` atomically (pretty-printed, sorted keys).
    /// - Throws: `LaunchBenchError.cannotWrite`.
    package func write(to url: URL) throws {
        let data: Data
        do {
            data = try JSONCoding.encoder(pretty: true).encode(self)
        } catch {
            throw LaunchBenchError.cannotEncode(path: url.path, reason: LaunchBenchError.encodingFailure(error))
        }
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw LaunchBenchError.cannotWrite(path: url.path, reason: error.localizedDescription)
        }
    }
}

// Field by field, so one odd value costs that value only.
extension RunManifest.Host {
    /// Reads the host, field by field.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try? c.decodeIfPresent(String.self, forKey: .name)
        operatingSystem = try? c.decodeIfPresent(String.self, forKey: .operatingSystem)
        architecture = try? c.decodeIfPresent(String.self, forKey: .architecture)
    }
}

extension RunManifest.App {
    /// Reads the app, field by field.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        bundleID = try? c.decodeIfPresent(String.self, forKey: .bundleID)
        name = try? c.decodeIfPresent(String.self, forKey: .name)
        version = try? c.decodeIfPresent(String.self, forKey: .version)
        build = try? c.decodeIfPresent(String.self, forKey: .build)
        frameworks = try? c.decodeIfPresent([String].self, forKey: .frameworks)
    }
}

extension RunManifest.DeviceOutcome {
    /// Reads the outcome as the synthesized decoder did, except `stop`: an unreadable stop decision (a newer
    /// tool's rule) costs that decision only, and the gate then works from the samples.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        udid = try c.decode(String.self, forKey: .udid)
        outcome = try c.decode(Outcome.self, forKey: .outcome)
        notes = try c.decode([String].self, forKey: .notes)
        engine = try c.decodeIfPresent(String.self, forKey: .engine)
        engineReason = try c.decodeIfPresent(String.self, forKey: .engineReason)
        premainSource = try c.decodeIfPresent(PremainSource.self, forKey: .premainSource)
        launcher = try? c.decodeIfPresent(LaunchMethod.self, forKey: .launcher)
        stop = try? c.decodeIfPresent(StopDecision.self, forKey: .stop)
        conditions = try? c.decodeIfPresent(DeviceConditionsRecord.self, forKey: .conditions)
        firstFrameSources = try? c.decodeIfPresent([FirstFrameSource].self, forKey: .firstFrameSources)
    }
}

extension RunManifest.Options {
    /// Reads the options, field by field.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        iterations = try? c.decodeIfPresent(Int.self, forKey: .iterations)
        cold = try? c.decodeIfPresent(String.self, forKey: .cold)
        warm = try? c.decodeIfPresent(Int.self, forKey: .warm)
        timeoutSeconds = try? c.decodeIfPresent(Double.self, forKey: .timeoutSeconds)
        environment = try? c.decodeIfPresent([String].self, forKey: .environment)
        targetPrecisionPercent = try? c.decodeIfPresent(Double.self, forKey: .targetPrecisionPercent)
        maxIterations = try? c.decodeIfPresent(Int.self, forKey: .maxIterations)
        other = try? c.decodeIfPresent([String: String].self, forKey: .other)
    }
}

/// Decodes a `T` or nothing, so one bad element does not fail an array.
private struct Tolerant<T: Decodable>: Decodable {
    var value: T?
    init(from decoder: any Decoder) throws { value = try? T(from: decoder) }
}
