import Foundation

/// `run.json`: what was run, where, when and how — written when the run starts and rewritten when it ends.
public struct RunManifest: Sendable, Hashable, Codable {
    /// Bumped when a field changes meaning; readers accept unknown fields.
    public var schemaVersion: Int
    /// Always `launchbench`: marks the folder as a results folder.
    public var tool: String
    public var toolVersion: String
    public var runID: String
    public var startedAt: Date
    /// `nil` while the run is going on (or when it was killed before it could finish).
    public var endedAt: Date?
    /// `true` when the run was cancelled (Ctrl-C) before every launch was made.
    public var interrupted: Bool
    public var host: Host
    public var app: App
    public var options: Options
    public var devices: [Device]

    public init(
        runID: String, startedAt: Date, endedAt: Date? = nil, interrupted: Bool = false, host: Host = .current,
        app: App, options: Options, devices: [Device]
    ) {
        schemaVersion = 1
        tool = "launchbench"
        toolVersion = LaunchBenchVersion.current
        self.runID = runID
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.interrupted = interrupted
        self.host = host
        self.app = app
        self.options = options
        self.devices = devices
    }

    /// The machine that drove the devices.
    public struct Host: Sendable, Hashable, Codable {
        public var name: String
        public var operatingSystem: String

        public init(name: String, operatingSystem: String) {
            self.name = name
            self.operatingSystem = operatingSystem
        }

        public static var current: Host {
            let info = ProcessInfo.processInfo
            return Host(name: info.hostName, operatingSystem: info.operatingSystemVersionString)
        }

        private enum CodingKeys: String, CodingKey {
            case name, operatingSystem = "operating_system"
        }
    }

    /// The benchmarked app.
    public struct App: Sendable, Hashable, Codable {
        public var bundleID: String
        public var name: String
        public var version: String
        public var build: String
        public var executable: String
        public var path: String
        public var packaging: AppBundle.Packaging
        public var frameworks: [String]

        public init(_ bundle: AppBundle) {
            bundleID = bundle.bundleID
            name = bundle.bundleName
            version = bundle.shortVersion
            build = bundle.build
            executable = bundle.executable
            path = bundle.url.path
            packaging = bundle.packaging
            frameworks = bundle.frameworks
        }

        private enum CodingKeys: String, CodingKey {
            case bundleID = "bundle_id", name, version, build, executable, path, packaging, frameworks
        }
    }

    /// The options the run was made with (durations in seconds).
    public struct Options: Sendable, Hashable, Codable {
        public var iterations: Int
        public var coldMode: String
        public var warmLaunches: Int
        /// `NAME=VALUE`, in the order passed to the app (includes `DYLD_PRINT_STATISTICS=1`).
        public var environment: [String]
        public var arguments: [String]
        public var timeoutSeconds: Double
        public var graceSeconds: Double
        public var settleSeconds: Double

        public init(
            iterations: Int, coldMode: String, warmLaunches: Int, environment: [String], arguments: [String],
            timeoutSeconds: Double, graceSeconds: Double, settleSeconds: Double
        ) {
            self.iterations = iterations
            self.coldMode = coldMode
            self.warmLaunches = warmLaunches
            self.environment = environment
            self.arguments = arguments
            self.timeoutSeconds = timeoutSeconds
            self.graceSeconds = graceSeconds
            self.settleSeconds = settleSeconds
        }

        private enum CodingKeys: String, CodingKey {
            case iterations, coldMode = "cold_mode", warmLaunches = "warm_launches", environment, arguments
            case timeoutSeconds = "timeout_seconds", graceSeconds = "grace_seconds", settleSeconds = "settle_seconds"
        }
    }

    /// One device the run was asked to measure, and what became of it.
    public struct Device: Sendable, Hashable, Codable {
        public enum Outcome: String, Sendable, Hashable, Codable {
            /// Still being measured (the run has not ended).
            case running
            /// Every planned launch was made.
            case measured
            /// Not measured at all (e.g. iOS 17+: no debugserver); `note` says why.
            case skipped
            /// Disappeared during the run; its later launches were not made.
            case lost
            /// Given up early (the app could not be installed, or launches kept being refused); `notes` says why.
            case stopped
            /// The run was cancelled before its launches were all made.
            case interrupted
        }

        public var udid: String
        public var name: String
        public var productType: String
        public var osVersion: String
        public var buildVersion: String
        public var outcome: Outcome
        /// What the user should know about this device's measurements (iOS-version caveats, why it was skipped).
        public var notes: [String]

        public init(_ info: DeviceInfo, outcome: Outcome = .running, notes: [String] = []) {
            udid = info.udid
            name = info.name
            productType = info.productType
            osVersion = info.osVersion
            buildVersion = info.buildVersion
            self.outcome = outcome
            self.notes = notes
        }

        /// The device as the core model sees it.
        public var info: DeviceInfo {
            DeviceInfo(udid: udid, name: name, productType: productType, osVersion: osVersion, buildVersion: buildVersion)
        }

        private enum CodingKeys: String, CodingKey {
            case udid, name, productType = "product_type", osVersion = "os_version", buildVersion = "build_version"
            case outcome, notes
        }
    }

    private enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", tool, toolVersion = "tool_version", runID = "run_id"
        case startedAt = "started_at", endedAt = "ended_at", interrupted, host, app, options, devices
    }
}
