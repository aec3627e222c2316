/// Statistics of a run per device × launch kind × metric: what `summary.csv`, `summary.json`,
/// the HTML and Markdown reports and the end-of-run terminal summary show.
package struct RunSummary: Sendable, Hashable {
    /// Devices in the order they first appear in the samples (the order the runner measured them).
    package var devices: [DeviceSummary]
    /// The metrics reported for every device: each one measured at least once anywhere in the run,
    /// in `samples.csv` column order. When nothing was measured at all, every metric, so that the
    /// failures still have rows to be counted in.
    package var metrics: [Metric]

    /// Groups `samples` by device and launch kind and computes every metric's statistics.
    /// - Parameters:
    ///   - samples: the launches, in the order measured.
    ///   - deviceOrder: UDIDs in the order to report them (`run.json`'s devices); devices not listed
    ///     follow in the order they first appear in `samples`.
    ///   - remarks: what the user should know per device (UDID → sentences), e.g. `run.json`'s
    ///     device outcome notes; shown under the device in every report.
    package init(samples: [Sample], deviceOrder: [String] = [], remarks: [String: [String]] = [:]) {
        var accumulator = Accumulator()
        for sample in samples { accumulator.add(sample) }
        self = accumulator.summary(deviceOrder: deviceOrder, remarks: remarks)
    }

    fileprivate init(devices: [DeviceSummary], metrics: [Metric]) {
        self.devices = devices
        self.metrics = metrics
    }

    /// A summary built one launch at a time, as a results folder is read: it keeps a `LaunchPoint` per
    /// launch and counts, never the samples, so its memory does not grow with their text.
    struct Accumulator: Sendable {
        private var order: [String] = []
        private var byDevice: [String: DeviceLaunches] = [:]
        private var measured: Set<Metric> = []

        /// An empty accumulator.
        init() {}

        /// Adds one launch, in the order measured.
        mutating func add(_ sample: Sample) {
            if !sample.status.isFailure { measured.formUnion(sample.metrics.keys) }
            if byDevice[sample.deviceUDID] == nil { order.append(sample.deviceUDID) }
            byDevice[sample.deviceUDID, default: DeviceLaunches()].add(sample)
        }

        /// The statistics of the launches added so far (see `RunSummary.init(samples:deviceOrder:remarks:)`).
        func summary(deviceOrder: [String] = [], remarks: [String: [String]] = [:]) -> RunSummary {
            let found = Metric.allCases.filter(measured.contains)
            let metrics = found.isEmpty ? Metric.allCases : found
            let listed = deviceOrder.filter { byDevice[$0] != nil }
            let ordered = listed + order.filter { !listed.contains($0) }
            let devices = ordered.compactMap { udid in
                byDevice[udid].map { DeviceSummary($0, metrics: metrics, remarks: remarks[udid] ?? []) }
            }
            return RunSummary(devices: devices, metrics: metrics)
        }
    }

    /// Every (device, kind, metric) row, in report order: device, then cold before warm, then metric.
    package var entries: [SummaryEntry] {
        devices.flatMap { device in
            device.kinds.flatMap { kind in
                metrics.compactMap { metric in
                    kind.metrics[metric].map {
                        SummaryEntry(device: device.device, kind: kind.kind, metric: metric, statistics: $0)
                    }
                }
            }
        }
    }

    /// All launches and all failed launches across devices.
    package var launchCount: Int { devices.reduce(0) { $0 + $1.kinds.reduce(0) { $0 + $1.launches } } }
    /// Launches whose status is a failure (`SampleStatus.isFailure`), across all devices and kinds.
    var failureCount: Int { devices.reduce(0) { $0 + $1.kinds.reduce(0) { $0 + $1.failures } } }
}

/// Who a device is, as the samples name it.
package struct DeviceIdentity: Sendable, Hashable, Codable {
    /// The device's UDID as the samples record it (`device_udid`); the key that groups launches by device.
    package var udid: String
    /// The user-set name (`Ana's iPhone`): any text, so escaped wherever it is written.
    package var name: String
    /// The model identifier (`iPhone12,1`); see `modelDescription` for a readable name.
    package var productType: String
    /// The iOS version the device reported (`14.8`).
    package var osVersion: String

    /// `iPhone 11 (iPhone12,1)`, or the identifier alone when the catalog does not know it.
    package var modelDescription: String {
        let marketing = DeviceModels.marketingName(for: productType)
        return marketing == productType ? productType : "\(marketing) (\(productType))"
    }
}

/// One device's launches, split by kind.
package struct DeviceSummary: Sendable, Hashable {
    /// The device as its latest sample names it: a rename or iOS update mid-run shows its final state.
    package var device: DeviceIdentity
    /// Cold before warm; a kind with no launches is left out (`--warm 0`).
    package var kinds: [KindSummary]
    /// What the user should know about this device (why it was stopped, where its times come from, which
    /// launches the phone disturbed).
    package var remarks: [String]
    /// Its launches after a prelaunch or with a rebuilt closure; the set-aside ones are in no `kinds` entry.
    package var disturbed: DisturbedLaunches
    /// What the launches themselves said: failure messages and parser warnings, each distinct text
    /// once with how many launches said it, in order of first appearance.
    package var messages: [LaunchMessage]

    /// The app as this device's first launch names it (`app_bundle_id`, `app_version`).
    package var appBundleID: String
    /// The app's version and build as this device's first launch names it, `1.2 (34)`.
    package var appVersion: String

    fileprivate init(_ launches: DeviceLaunches, metrics: [Metric], remarks: [String]) {
        disturbed = launches.disturbed
        self.remarks = remarks + launches.disturbed.remarks
        messages = launches.messageOrder.map { LaunchMessage(text: $0, launches: launches.messageCounts[$0] ?? 0) }
        device = launches.device
        appBundleID = launches.appBundleID ?? ""
        appVersion = launches.appVersion
        kinds = LaunchKind.allCases.compactMap { kind in
            launches.kinds[kind].map { KindSummary(kind: kind, launches: $0, metrics: metrics) }
        }
    }

    /// This device's launches of `kind`, or `nil` when there were none (warm with `--warm 0`).
    package func kind(_ kind: LaunchKind) -> KindSummary? { kinds.first { $0.kind == kind } }

    /// The rows a per-device table shows: every kind x metric with at least one measured launch, in order,
    /// and the metrics with none on this device (pre-main on iOS 15+), which stay in summary.csv but are
    /// only named in people's reports.
    package func measuredRows(of metrics: [Metric]) -> (
        rows: [(kind: LaunchKind, metric: Metric, statistics: MetricStatistics)], unmeasured: [Metric]
    ) {
        var rows: [(kind: LaunchKind, metric: Metric, statistics: MetricStatistics)] = []
        var unmeasured: [Metric] = []
        for kind in kinds {
            for metric in metrics {
                guard let statistics = kind.metrics[metric] else { continue }
                if statistics.n > 0 {
                    rows.append((kind.kind, metric, statistics))
                } else if !unmeasured.contains(metric) {
                    unmeasured.append(metric)
                }
            }
        }
        return (rows, unmeasured.filter { metric in !rows.contains { $0.metric == metric } })
    }

    /// Total pre-main and first frame when measured (the two numbers people ask for); without dyld
    /// statistics (iOS 15+), time to main (LaunchProbe's `main` mark, counted from process start, so it
    /// includes pre-main) and first frame; else the headline metric; empty when nothing was measured.
    /// What the short summaries show.
    package var keyMetrics: [Metric] {
        let measured = { (metric: Metric) in self.kinds.contains { ($0.metrics[metric]?.n ?? 0) > 0 } }
        if measured(.totalPremainMs) { return [Metric.totalPremainMs, .firstFrameMs].filter(measured) }
        let preferred = [Metric.mainMs, .firstFrameMs].filter(measured)
        if !preferred.isEmpty { return preferred }
        return headlineMetric.map { [$0] } ?? []
    }

    /// The metric that best stands for "how long the launch took" on this device: the first one
    /// measured of first frame (the whole launch as the user sees it), total pre-main,
    /// didFinishLaunching, main, harness wall time. `nil` when nothing was measured.
    package var headlineMetric: Metric? {
        Metric.headlineOrder.first { metric in kinds.contains { ($0.metrics[metric]?.n ?? 0) > 0 } }
    }
}

/// One device's launches of one kind.
package struct KindSummary: Sendable, Hashable {
    /// Cold or warm.
    package var kind: LaunchKind
    /// Every launch of this kind, failed or not.
    package var launches: Int
    /// Launches whose status is a failure (`SampleStatus.isFailure`).
    package var failures: Int
    /// Launches that ran but measured nothing (`no-metrics`): not failures, not numbers.
    package var withoutMetrics: Int
    /// Failed launches by status, for the reports' "why".
    package var failuresByStatus: [SampleStatus: Int]
    /// Statistics of each of the run's reported metrics over this kind's launches that did not fail; a
    /// metric none of them measured has an entry with n = 0 (empty cells), not a missing key.
    package var metrics: [Metric: MetricStatistics]
    /// The launches themselves, in order (charts draw them).
    package var points: [LaunchPoint]
    /// Bundle images loaded and initializer times by image (`images.csv`, "what to look at").
    package var images: ImageStatistics

    fileprivate init(kind: LaunchKind, launches kindLaunches: KindLaunches, metrics: [Metric]) {
        self.kind = kind
        let points = kindLaunches.points
        self.points = points
        images = kindLaunches.images.statistics
        launches = points.count
        let failed = points.filter(\.status.isFailure)
        failures = failed.count
        withoutMetrics = points.filter { $0.status == .noMetrics }.count
        failuresByStatus = Dictionary(grouping: failed, by: \.status).mapValues(\.count)
        let measured = points.filter { !$0.status.isFailure }
        var statistics: [Metric: MetricStatistics] = [:]
        for metric in metrics {
            statistics[metric] = MetricStatistics(
                values: measured.compactMap { $0[metric] }.filter(\.isFinite), failures: failures)
        }
        self.metrics = statistics
    }
}

/// A text the launches printed or the harness recorded, and how many launches it concerns.
package struct LaunchMessage: Sendable, Hashable {
    /// The text verbatim: a failed launch's message or a parser warning.
    package var text: String
    /// How many launches said it (each launch counted once, however often it said it).
    package var launches: Int
}

/// One row of `summary.csv`.
package struct SummaryEntry: Sendable, Hashable {
    /// The row's device: the `device_udid`, `device_name`, `product_type` and `os_version` columns.
    package var device: DeviceIdentity
    /// The `launch_kind` column (`cold` or `warm`).
    package var kind: LaunchKind
    /// The `metric` column: one of `samples.csv`'s `*_ms` column names.
    package var metric: Metric
    /// The `n`, `failures` and statistic columns (`min` … `ci95_high`: ms, except `cv_percent`).
    package var statistics: MetricStatistics
}

extension Metric {
    /// Metrics in the order they best describe a whole launch (see `DeviceSummary.headlineMetric`).
    static let headlineOrder: [Metric] = [
        .firstFrameMs, .totalPremainMs, .didFinishLaunchingMs, .mainMs, .wallMs,
    ]

    /// A short human name for charts and tables.
    package var title: String {
        switch self {
        case .totalPremainMs: return "total pre-main"
        case .dylibLoadingMs: return "dylib loading"
        case .rebaseBindingMs: return "rebase/binding"
        case .objcSetupMs: return "ObjC setup"
        case .initializerMs: return "initializers"
        case .mainMs: return "time to main (from process start)"
        case .didFinishLaunchingMs: return "didFinishLaunching"
        case .firstFrameMs: return "first frame"
        case .wallMs: return "wall time"
        case .processCreationMs: return "process creation"
        case .closureBuildMs: return "launch closure build"
        case .pageIns: return "page-ins"
        case .pageInMs: return "page-in time"
        case .zeroFillFaults: return "zero-fill faults"
        case .cowFaults: return "copy-on-write faults"
        case .compressorFaults: return "compressor faults"
        }
    }
}

/// One device's launches as they are read: identity, messages, and per kind the points and image counts.
private struct DeviceLaunches: Sendable {
    var device = DeviceIdentity(udid: "", name: "", productType: "", osVersion: "")
    var appBundleID: String?
    var appVersion = ""
    var messageCounts: [String: Int] = [:]
    var messageOrder: [String] = []
    var kinds: [LaunchKind: KindLaunches] = [:]
    var disturbed = DisturbedLaunches()

    mutating func add(_ sample: Sample) {
        // The latest sample names the device: a rename or an iOS update mid-run shows its final state.
        device = DeviceIdentity(
            udid: sample.deviceUDID, name: sample.deviceName, productType: sample.productType,
            osVersion: sample.osVersion)
        if appBundleID == nil {
            appBundleID = sample.appBundleID
            appVersion = sample.appVersion
        }
        let texts = (sample.status.isFailure ? [sample.message].compactMap { $0 } : []) + sample.warnings
        var seen: Set<String> = []
        for text in texts where seen.insert(text).inserted {
            if messageCounts[text] == nil { messageOrder.append(text) }
            messageCounts[text, default: 0] += 1
        }
        disturbed.add(sample)
        // A set-aside launch is named, not measured: no statistic, chart or gate sees it.
        if sample.setAside { return }
        kinds[sample.kind, default: KindLaunches()].add(sample)
    }
}

/// One device's launches of one kind as they are read.
private struct KindLaunches: Sendable {
    var points: [LaunchPoint] = []
    var images = ImageStatistics.Accumulator()

    mutating func add(_ sample: Sample) {
        points.append(LaunchPoint(sample))
        images.add(sample)
    }
}
