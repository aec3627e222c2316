/// Builds a trend's series run by run: each run's devices are matched to the series' devices as the gate
/// matches them, a device whose app, model, iOS, pre-main source or launcher changed starts a new series (with a
/// note), as does `first_frame_ms` when its source changed, and each point is judged against the previous point
/// of its series. A run that measured a device but not a metric its series follows says so in a note: the
/// point is missing, never silently.
struct TrendSeriesBuilder {
    let settings: GateSettings
    /// What reading the folders had to say, and where a device's series broke, naming the folder.
    private(set) var notes: [String] = []
    private var seriesDevices: [DeviceIdentity] = []
    private var byKey: [String: Trend.Series] = [:]
    private var order: [String] = []
    private var previous: [String: [LaunchPoint]] = [:]
    /// The last series key of each anchor device (without kind and metric), to notice a break.
    private var lastSeriesOf:
        [String: (key: String, device: DeviceIdentity, app: String?, sources: MeasurementSources)] = [:]
    /// The metrics each anchor device's series follow (its last series), to notice a run that lacks one.
    private var followed: [String: Set<Metric>] = [:]

    init(settings: GateSettings) {
        self.settings = settings
    }

    /// Every series with at least one point, in order of first appearance.
    var series: [Trend.Series] { order.compactMap { byKey[$0] } }

    /// Adds run `runIndex`'s points.
    mutating func add(run runIndex: Int, path: String, folder: ResultsFolder, launches: TrendLaunches) {
        notes += folder.notes.map { "\(path): \($0)" }
        let app = folder.manifest?.app?.bundleID ?? GateInput.mostFrequentApp(counts: launches.appCounts)
        // Devices in the order the launches first name them, as the gate lists them.
        let deviceSummaries = launches.devices.devices(of: folder.summary)
        let seriesOf = anchors(of: deviceSummaries.map(\.device))
        let metrics = settings.metrics.isEmpty ? folder.summary.metrics : settings.metrics
        for deviceSummary in deviceSummaries {
            guard let anchor = seriesOf[deviceSummary.device.udid] else { continue }
            let current = deviceSummary.device
            // Another pre-main source or launcher reads the same launch differently (kdebug counts process
            // creation, a debugger pauses dyld); a run that does not say (an older file) continues its series.
            let last = lastSeriesOf[anchor.udid]
            let found = launches.devices.sources(of: current.udid)
            let sources = MeasurementSources(
                premain: found.premain ?? last?.sources.premain,
                firstFrame: found.firstFrame ?? last?.sources.firstFrame,
                launcher: found.launcher ?? last?.sources.launcher)
            let seriesKey = [
                app ?? "", anchor.udid, current.productType, current.osVersion, sources.premain?.rawValue ?? "",
                sources.launcher?.rawValue ?? "",
            ]
            .joined(separator: "\u{1}")
            if let last {
                let changes = Trend.changes(from: last.device, last.app, last.sources, to: current, app, sources)
                if !changes.isEmpty { notes.append(Trend.breakNote(changes, device: current, path: path)) }
            }
            lastSeriesOf[anchor.udid] = (seriesKey, current, app, sources)
            var measured: Set<Metric> = []
            for kind in deviceSummary.kinds {
                for metric in metrics {
                    // UIKit's first frame and LaunchProbe's marker are two numbers: a series each.
                    let key =
                        metric == .firstFrameMs
                        ? seriesKey + "\u{1}" + (sources.firstFrame?.rawValue ?? "") : seriesKey
                    if add(kind, metric, of: current, anchor: anchor, app: app, run: runIndex, seriesKey: key) {
                        measured.insert(metric)
                    }
                }
            }
            if let lacking = missingNote(
                anchor: anchor, device: current, measured: measured, sources: sources, path: path)
            {
                notes.append(lacking)
            }
            followed[anchor.udid] = measured
        }
    }

    /// Each device of a run → the series device it continues (a new one for a device not matched).
    private mutating func anchors(of devices: [DeviceIdentity]) -> [String: DeviceIdentity] {
        let matching = DeviceMatching.match(baseline: seriesDevices, current: devices)
        var seriesOf: [String: DeviceIdentity] = [:]
        for pair in matching.pairs { seriesOf[pair.current.udid] = pair.baseline }
        for device in matching.unmatchedCurrent {
            seriesDevices.append(device)
            seriesOf[device.udid] = device
        }
        return seriesOf
    }

    /// The metrics the device's series followed until this run and this run did not measure, in a note naming
    /// the folder (its pre-main source says why, when it is `none`); `nil` when none is missing.
    private func missingNote(
        anchor: DeviceIdentity, device: DeviceIdentity, measured: Set<Metric>, sources: MeasurementSources,
        path: String
    ) -> String? {
        let missing = (followed[anchor.udid] ?? []).subtracting(measured).sorted { $0.rawValue < $1.rawValue }
        guard !missing.isEmpty else { return nil }
        let why = sources.premain == .notMeasured ? " (pre-main source none: its kdebug session was lost)" : ""
        return "\(device.name) (\(device.udid)): \(missing.map(\.rawValue).joined(separator: ", ")) not measured "
            + "in \(path)\(why): no point there in \(missing.count == 1 ? "its series" : "their series")."
    }

    /// One point: `metric` of `kind` on `current`, judged against the series' previous point; whether the run
    /// measured it.
    @discardableResult
    private mutating func add(
        _ kind: KindSummary, _ metric: Metric, of current: DeviceIdentity, anchor: DeviceIdentity, app: String?,
        run runIndex: Int, seriesKey: String
    ) -> Bool {
        guard let s = kind.metrics[metric], s.n > 0 else { return false }
        let key = "\(seriesKey)\u{1}\(kind.kind.rawValue)\u{1}\(metric.rawValue)"
        let ofKind = kind.points
        var change: GateEntry?
        if let before = previous[key] {
            let pair = DeviceMatching.Pair(baseline: anchor, current: current, basis: .udid)
            change = GateComparison.entry(
                pair: pair, kind: kind.kind, metric: metric, baseline: GateComparison.side(before, metric),
                current: GateComparison.side(ofKind, metric), settings: settings)
        }
        previous[key] = ofKind
        let point = Trend.Point(
            run: runIndex, device: current, n: s.n, failures: s.failures, median: s.median, ci95Low: s.ci95?.low,
            ci95High: s.ci95?.high, change: change)
        if byKey[key] == nil {
            order.append(key)
            let first = anchor.productType == current.productType && anchor.osVersion == current.osVersion
            byKey[key] = Trend.Series(
                app: app, device: first ? anchor : current, kind: kind.kind, metric: metric, points: [])
        }
        byKey[key]?.points.append(point)
        return true
    }
}
