import Foundation

/// One launch on one device: a line of `samples.jsonl` and a row of `samples.csv`.
///
/// JSON keys are the `samples.csv` column names (snake_case) plus a few extras, so a line of
/// `samples.jsonl` reads the same as its CSV row. A metric that was not measured is absent
/// (decoded as `nil`), never zero.
package struct Sample: Sendable, Hashable, Codable {
    /// The run this launch belongs to (`run_id`, as in run.json).
    package var runID: String
    /// The device's UDID (`device_udid`).
    package var deviceUDID: String
    /// The device's name as lockdown reported it at the start of the run (`device_name`).
    package var deviceName: String
    /// The model identifier, e.g. `iPhone12,1` (`product_type`).
    package var productType: String
    /// The iOS version, e.g. `14.8` (`os_version`).
    package var osVersion: String
    /// The launched app's `CFBundleIdentifier` (`app_bundle_id`).
    package var appBundleID: String
    /// The app's version and build, `1.2 (34)` (`app_version`).
    package var appVersion: String
    /// 1-based iteration number on this device.
    package var iteration: Int
    /// Cold (first launch after the reinstall) or warm.
    package var kind: LaunchKind
    /// 0 for the cold launch, 1…K for the warm launches that follow it.
    package var launchIndex: Int
    /// How the launch ended (`ok`, or a failure kind); a failed launch keeps what it measured.
    package var status: SampleStatus
    /// Measured values by metric; a missing key means "not measured".
    package var metrics: [Metric: Double]
    /// When the launch started (debugserver's `continue`), UTC.
    package var startedAt: Date
    /// Images loaded from inside the app bundle (DYLD_PRINT_LIBRARIES), as paths relative to the bundle.
    package var bundleImages: [String]
    /// dyld's per-image initializer times (ms as printed): the details block's list when printed (images
    /// ≥ 0.1 % of the total), else the summary's `slowest intializers` (≥ 2 %). `nil` when dyld printed no
    /// statistics; an image missing from a list was under dyld's threshold, not 0 ms.
    package var initializers: [InitializerTime]?
    /// Parser warnings and harness notes for this launch.
    package var warnings: [String]
    /// Why the launch failed, in words a user can act on; `nil` when it did not.
    package var message: String?
    /// The app's exit status, when it exited by itself.
    package var exitStatus: Int?
    /// The signal that ended the app (`X` from debugserver, or a crash), when it did not exit by itself.
    package var signal: Int?
    /// The raw log, relative to the results folder (`logs/UDID/0001-cold.log`).
    package var logPath: String?
    /// How long the harness spent on each step of this launch (`phases` in samples.jsonl; not in the CSV).
    package var phases: PhaseTimings = PhaseTimings()
    /// Where the pre-main phases came from; `nil` when none were measured.
    package var premainSource: PremainSource?
    /// How the app was launched (`launcher` in samples.jsonl; `nil` in files written before it was recorded).
    package var launcher: LaunchMethod?
    /// The device's conditions before this launch's iteration (`conditions` in samples.jsonl; `nil` when none
    /// were read, and in files written before they were recorded).
    package var conditions: DeviceConditions?
    /// Which build of an A/B run (`run NEW --against BASE`) this launch measured: `new` or `base` (`build` in
    /// samples.jsonl; `nil` in any other run and in files written before A/B runs).
    package var build: String?
    /// The launch the phone made by itself since the app's previous launch (`prelaunch` in samples.jsonl).
    package var prelaunch: Prelaunch?
    /// dyld built the launch closure on a launch that is not the first after an install (an OS or cache change:
    /// `closure_rebuilt` in samples.jsonl, written only when true).
    package var closureRebuilt = false
    /// Kept out of the statistics and the gate, and named in the reports: a cold launch after a prelaunch, or a
    /// rebuilt closure, unless the run counted them (`--count-prelaunched`; `set_aside`, written only when true).
    package var setAside = false
    /// kdebug: the file-backed page-ins from exec to the first frame by image, most first (`page_ins_by_image` in
    /// samples.jsonl: `[{image, page_ins, ms}]`, the image's path; absent when page faults were not traced).
    package var pageInsByImage: [ImagePageIns]?
    /// How often process control's launch was tried again after the phone refused it for a moment (already
    /// running, busy, locked): `launch_retries` in samples.jsonl, written only when not 0.
    package var launchRetries = 0
    /// Where `first_frame_ms` came from (`first_frame_source` in samples.jsonl; `nil` when the first frame was not
    /// measured, and in files written before it was recorded).
    package var firstFrameSource: FirstFrameSource?
    /// kdebug: UIKit's Initial Frame Rendering ENDs on the app's main thread before its BEGIN, never the first
    /// frame (`stray_frame_ends` in samples.jsonl; `nil` when the launch's UIKit events were not read).
    package var strayFrameEnds: Int?

    /// A sample with every field given; `metrics` holds only what was measured.
    package init(
        runID: String, deviceUDID: String, deviceName: String, productType: String, osVersion: String,
        appBundleID: String, appVersion: String, iteration: Int, kind: LaunchKind, launchIndex: Int = 0,
        status: SampleStatus, metrics: [Metric: Double] = [:], startedAt: Date, bundleImages: [String] = [],
        warnings: [String] = [], message: String? = nil, exitStatus: Int? = nil, signal: Int? = nil,
        logPath: String? = nil, initializers: [InitializerTime]? = nil
    ) {
        self.initializers = initializers
        self.runID = runID
        self.deviceUDID = deviceUDID
        self.deviceName = deviceName
        self.productType = productType
        self.osVersion = osVersion
        self.appBundleID = appBundleID
        self.appVersion = appVersion
        self.iteration = iteration
        self.kind = kind
        self.launchIndex = launchIndex
        self.status = status
        self.metrics = metrics
        self.startedAt = startedAt
        self.bundleImages = bundleImages
        self.warnings = warnings
        self.message = message
        self.exitStatus = exitStatus
        self.signal = signal
        self.logPath = logPath
    }

    /// The value measured for `metric`, `nil` when it was not measured.
    package subscript(metric: Metric) -> Double? { metrics[metric] }

    private enum CodingKeys: String, CodingKey {
        case runID = "run_id"
        case deviceUDID = "device_udid"
        case deviceName = "device_name"
        case productType = "product_type"
        case osVersion = "os_version"
        case appBundleID = "app_bundle_id"
        case appVersion = "app_version"
        case iteration
        case kind = "launch_kind"
        case launchIndex = "launch_index"
        case status
        case startedAt = "started_at"
        case bundleImages = "bundle_images"
        case warnings, message
        case exitStatus = "exit_status"
        case signal
        case logPath = "log_path"
        case phases, initializers
        case premainSource = "premain_source"
        case launcher
        case conditions
        case build
        case prelaunch
        case closureRebuilt = "closure_rebuilt"
        case setAside = "set_aside"
        case pageInsByImage = "page_ins_by_image"
        case launchRetries = "launch_retries"
        case firstFrameSource = "first_frame_source"
        case strayFrameEnds = "stray_frame_ends"
    }

    private struct MetricKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Reads one samples.jsonl line: the named fields, and every metric under its column name.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        runID = try c.decode(String.self, forKey: .runID)
        deviceUDID = try c.decode(String.self, forKey: .deviceUDID)
        deviceName = try c.decode(String.self, forKey: .deviceName)
        productType = try c.decode(String.self, forKey: .productType)
        osVersion = try c.decode(String.self, forKey: .osVersion)
        appBundleID = try c.decode(String.self, forKey: .appBundleID)
        appVersion = try c.decode(String.self, forKey: .appVersion)
        iteration = try c.decode(Int.self, forKey: .iteration)
        kind = try c.decode(LaunchKind.self, forKey: .kind)
        launchIndex = try c.decodeIfPresent(Int.self, forKey: .launchIndex) ?? 0
        status = try c.decode(SampleStatus.self, forKey: .status)
        startedAt = try c.decode(Date.self, forKey: .startedAt)
        bundleImages = try c.decodeIfPresent([String].self, forKey: .bundleImages) ?? []
        initializers = try c.decodeIfPresent([InitializerTime].self, forKey: .initializers)
        warnings = try c.decodeIfPresent([String].self, forKey: .warnings) ?? []
        message = try c.decodeIfPresent(String.self, forKey: .message)
        exitStatus = try c.decodeIfPresent(Int.self, forKey: .exitStatus)
        signal = try c.decodeIfPresent(Int.self, forKey: .signal)
        logPath = try c.decodeIfPresent(String.self, forKey: .logPath)
        phases = try c.decodeIfPresent(PhaseTimings.self, forKey: .phases) ?? PhaseTimings()
        premainSource = try c.decodeIfPresent(PremainSource.self, forKey: .premainSource)
        launcher = try c.decodeIfPresent(LaunchMethod.self, forKey: .launcher)
        conditions = try? c.decodeIfPresent(DeviceConditions.self, forKey: .conditions)
        build = try c.decodeIfPresent(String.self, forKey: .build)
        prelaunch = try c.decodeIfPresent(Prelaunch.self, forKey: .prelaunch)
        closureRebuilt = try c.decodeIfPresent(Bool.self, forKey: .closureRebuilt) ?? false
        setAside = try c.decodeIfPresent(Bool.self, forKey: .setAside) ?? false
        pageInsByImage = try c.decodeIfPresent([ImagePageIns].self, forKey: .pageInsByImage)
        launchRetries = try c.decodeIfPresent(Int.self, forKey: .launchRetries) ?? 0
        firstFrameSource = try c.decodeIfPresent(FirstFrameSource.self, forKey: .firstFrameSource)
        strayFrameEnds = try c.decodeIfPresent(Int.self, forKey: .strayFrameEnds)
        let m = try decoder.container(keyedBy: MetricKey.self)
        let limit = decoder.userInfo[Self.valueLimitKey] as? Double ?? Self.defaultValueLimitMs
        var metrics: [Metric: Double] = [:]
        for metric in Metric.allCases {
            let key = MetricKey(stringValue: metric.rawValue)
            if let value = try m.decodeIfPresent(Double.self, forKey: key) {
                // A count (page-ins) is bounded by no timeout.
                if let problem = Self.impossibility(value, limitMs: metric.isCount ? .infinity : limit) {
                    throw DecodingError.dataCorruptedError(forKey: key, in: m, debugDescription: problem)
                }
                metrics[metric] = value
            }
        }
        for item in initializers ?? [] {
            if let ms = item.ms, let problem = Self.impossibility(ms, limitMs: limit) {
                throw DecodingError.dataCorruptedError(
                    forKey: .initializers, in: c, debugDescription: "\(item.image): \(problem)")
            }
            for function in item.functions ?? [] {
                if let problem = Self.impossibility(function.ms, limitMs: limit) {
                    throw DecodingError.dataCorruptedError(
                        forKey: .initializers, in: c, debugDescription: "\(item.image) \(function.function): \(problem)"
                    )
                }
            }
        }
        self.metrics = metrics
    }

    /// The `userInfo` key of the largest launch time (ms) a reader accepts: what the run's `--timeout` allows.
    static let valueLimitKey = CodingUserInfoKey(rawValue: "launchbench.sampleValueLimitMs")!
    /// Without a known timeout: the longest `--timeout` a run accepts (`OptionCeilings.timeoutSeconds`) and a
    /// minute, as with a known one: no run can have measured more.
    static let defaultValueLimitMs = (OptionCeilings.timeoutSeconds + 60) * 1000

    /// Why `value` cannot be a launch time in ms (negative, not finite, or beyond `limitMs`), or `nil`.
    static func impossibility(_ value: Double, limitMs: Double) -> String? {
        if !value.isFinite { return "\(value) is not a number of milliseconds" }
        if value < 0 { return "\(DecimalText.fixed(value, maxFractionDigits: 3)) ms is negative" }
        if value > limitMs {
            return "\(value) ms is beyond what the run's timeout allows "
                + "(\(DecimalText.fixed(limitMs / 1000, maxFractionDigits: 0)) s)"
        }
        return nil
    }

    /// Writes one samples.jsonl line: metrics as top-level fields named like the CSV columns.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(runID, forKey: .runID)
        try c.encode(deviceUDID, forKey: .deviceUDID)
        try c.encode(deviceName, forKey: .deviceName)
        try c.encode(productType, forKey: .productType)
        try c.encode(osVersion, forKey: .osVersion)
        try c.encode(appBundleID, forKey: .appBundleID)
        try c.encode(appVersion, forKey: .appVersion)
        try c.encode(iteration, forKey: .iteration)
        try c.encode(kind, forKey: .kind)
        try c.encode(launchIndex, forKey: .launchIndex)
        try c.encode(status, forKey: .status)
        try c.encode(startedAt, forKey: .startedAt)
        try c.encode(bundleImages, forKey: .bundleImages)
        try c.encodeIfPresent(initializers, forKey: .initializers)
        try c.encode(warnings, forKey: .warnings)
        try c.encodeIfPresent(message, forKey: .message)
        try c.encodeIfPresent(exitStatus, forKey: .exitStatus)
        try c.encodeIfPresent(signal, forKey: .signal)
        try c.encodeIfPresent(logPath, forKey: .logPath)
        if !phases.isEmpty { try c.encode(phases, forKey: .phases) }
        try c.encodeIfPresent(premainSource, forKey: .premainSource)
        try c.encodeIfPresent(launcher, forKey: .launcher)
        try c.encodeIfPresent(conditions, forKey: .conditions)
        try c.encodeIfPresent(build, forKey: .build)
        try c.encodeIfPresent(prelaunch, forKey: .prelaunch)
        if closureRebuilt { try c.encode(true, forKey: .closureRebuilt) }
        if setAside { try c.encode(true, forKey: .setAside) }
        try c.encodeIfPresent(pageInsByImage, forKey: .pageInsByImage)
        if launchRetries != 0 { try c.encode(launchRetries, forKey: .launchRetries) }
        try c.encodeIfPresent(firstFrameSource, forKey: .firstFrameSource)
        try c.encodeIfPresent(strayFrameEnds, forKey: .strayFrameEnds)
        var m = encoder.container(keyedBy: MetricKey.self)
        for metric in Metric.allCases {
            if let value = metrics[metric] { try m.encode(value, forKey: MetricKey(stringValue: metric.rawValue)) }
        }
    }
}
