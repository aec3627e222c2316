import Foundation

/// Launch times across many results folders (a CI artifact history): per device × launch kind ×
/// metric, one point per folder with its median, 95 % interval and n, in run order; a point is a
/// *step* when the gate's test (Mann–Whitney at α, Hodges–Lehmann shift past the threshold) says the
/// change from the previous point of the same series is real.
///
/// Folders are ordered by their run's start time (`run.json`, else the first launch), ties in the
/// order given. Devices are matched as the gate matches them: same UDID, else same model and iOS
/// version, else same model (a new series then starts, naming both iOS versions). A folder that cannot be read is listed in `skipped` and left out, never fatal.
package struct Trend: Sendable {
    /// One results folder that was read.
    package struct Run: Sendable, Hashable {
        /// The path as given.
        package var path: String
        /// When the run started: `run.json`'s start, else its earliest launch's; `nil` when neither is known.
        package var startedAt: Date?
        /// `1.2 (34)`, from run.json or the launches.
        package var appVersion: String?
    }

    /// A folder left out, and why, in words for the user.
    package struct Skipped: Sendable, Hashable {
        /// The path as given.
        package var path: String
        /// Why it was left out, for the user: the read error's description, or that `samples.jsonl` holds no launches.
        package var reason: String
    }

    /// One folder's statistics of one series.
    package struct Point: Sendable, Hashable {
        /// Index into `runs`.
        package var run: Int
        /// The device measured in this run: the series' device, or a phone of the same model and iOS standing in.
        package var device: DeviceIdentity
        /// Launches of this run that measured the metric (failed ones excluded); at least 1 (else no point).
        package var n: Int
        /// Failed launches of this device and kind in this run (the same count for every metric).
        package var failures: Int
        /// Median of the metric over this run's measured launches, in ms.
        package var median: Double?
        /// Lower end of the median's distribution-free 95 % interval, in ms; `nil` when n < 6.
        package var ci95Low: Double?
        /// Upper end of the median's 95 % interval, in ms; `nil` when n < 6.
        var ci95High: Double?
        /// The gate's comparison with the previous point of the series; `nil` for the first point.
        package var change: GateEntry?

        /// A real step: the gate would call it a regression or an improvement.
        var isStep: Bool { change?.verdict == .regression || change?.verdict == .improvement }
    }

    /// One app on one device model and iOS version × kind × metric across the runs: launch times of another app,
    /// another model or another iOS version are another series, never one line.
    package struct Series: Sendable, Hashable {
        /// The app's bundle id (run.json's, else the launches' most frequent); `nil` when unknown.
        package var app: String?
        /// The device as first seen (later points may be another phone of the same model and iOS).
        package var device: DeviceIdentity
        /// Cold or warm.
        package var kind: LaunchKind
        /// The metric followed, one of `samples.csv`'s `*_ms` columns.
        package var metric: Metric
        /// One point per run that measured this series, in run order; runs without it have no point.
        package var points: [Point]
    }

    /// The folders that were read, in run order; `Point.run` indexes into it.
    package var runs: [Run]
    /// Folders left out (unreadable, or without launches), in the order given.
    package var skipped: [Skipped]
    /// Every device × kind × metric with at least one point, in order of first appearance.
    package var series: [Series]
    /// The gate settings the steps were judged with (threshold, α, metrics).
    package var settings: GateSettings
    /// What reading the folders had to say (lines skipped, a run still being written) and where a device's
    /// series broke (another iOS version, model or app under the same device), each naming the folder.
    package var folderNotes: [String] = []

    /// How the folders are put in order.
    package enum Order: String, Sendable, CaseIterable {
        /// By the run's start time (`run.json`, else the first launch).
        case time
        /// By the app's build (`run.json`'s `CFBundleVersion`, else the launches' app version), compared
        /// numerically part by part (`9` < `10` < `10.1`); runs of the same build by time.
        case build
    }

    /// Reads every folder, puts them in order and builds the series; a folder that cannot be read or holds no
    /// launches goes to `skipped`.
    /// - Parameters:
    ///   - paths: results folders, in any order.
    ///   - order: by start time or by app build; ties keep the order of `paths`.
    ///   - settings: the gate's threshold and level (for the steps); `metrics` limits the metrics (empty = every
    ///     metric measured in each run).
    package init(paths: [String], order: Order = .time, settings: GateSettings = GateSettings()) {
        var loaded: [(path: String, folder: ResultsFolder, launches: TrendLaunches)] = []
        var skipped: [Skipped] = []
        for path in paths {
            do {
                // Each launch is counted as it is read, not kept: the folder's summary holds what the
                // series need, so a 500,000-launch folder costs what `report` of it costs.
                var launches = TrendLaunches()
                let folder = try ResultsFolder.load(URL(fileURLWithPath: path)) { launches.add($0) }
                guard !launches.isEmpty else {
                    skipped.append(Skipped(path: path, reason: "samples.jsonl holds no launches"))
                    continue
                }
                loaded.append((path, folder, launches))
            } catch {
                let reason = (error as? any LocalizedError)?.errorDescription ?? "\(error)"
                skipped.append(Skipped(path: path, reason: reason))
            }
        }
        // Stable: equal or unknown keys keep the order given.
        let ordered = loaded.enumerated().sorted { a, b in
            if order == .build {
                let c = Self.compareBuilds(Self.build(of: a.element.folder), Self.build(of: b.element.folder))
                if c != 0 { return c < 0 }
            }
            switch (Self.start(of: a.element.folder), Self.start(of: b.element.folder)) {
            case (let x?, let y?) where x != y: return x < y
            default: return a.offset < b.offset
            }
        }.map(\.element)
        self.init(folders: ordered, skipped: skipped, settings: settings)
    }

    /// Builds the series from folders already read with their launches counted, in run order.
    private init(
        folders: [(path: String, folder: ResultsFolder, launches: TrendLaunches)], skipped: [Skipped],
        settings: GateSettings
    ) {
        self.settings = settings
        self.skipped = skipped
        runs = folders.map { path, folder, _ in
            Run(
                path: path, startedAt: Self.start(of: folder),
                appVersion: folder.manifest?.app.map { app in
                    [app.version, app.build.map { "(\($0))" }].compactMap { $0 }.joined(separator: " ")
                } ?? folder.firstSample?.appVersion)
        }
        var builder = TrendSeriesBuilder(settings: settings)
        for (runIndex, (path, folder, launches)) in folders.enumerated() {
            builder.add(run: runIndex, path: path, folder: folder, launches: launches)
        }
        series = builder.series
        folderNotes = builder.notes + folders.flatMap { Self.buildsNote(path: $0.path, folder: $0.folder) }
    }

    /// What changed on a device between two runs: model, iOS, app, pre-main source, launcher and first-frame
    /// source (unknown on a side is no change for the sources, as for the gate), in words; empty when nothing did.
    static func changes(
        from old: DeviceIdentity, _ oldApp: String?, _ oldSources: MeasurementSources, to new: DeviceIdentity,
        _ newApp: String?, _ newSources: MeasurementSources
    ) -> [String] {
        var changes: [String] = []
        if old.productType != new.productType { changes.append("model \(old.productType) → \(new.productType)") }
        if old.osVersion != new.osVersion { changes.append("iOS \(old.osVersion) → \(new.osVersion)") }
        if oldApp != newApp { changes.append("app \(oldApp ?? "unknown") → \(newApp ?? "unknown")") }
        // Each source once: the pre-main source (a pre-main metric's), the first frame's, the launcher.
        changes += MeasurementSources.changes(.totalPremainMs, old: oldSources, new: newSources)
        changes += MeasurementSources.changes(.firstFrameMs, old: oldSources, new: newSources).filter {
            $0.hasPrefix("first frame")
        }
        return changes
    }

    /// `iPhone 11 (UDID): iOS 14.8 → 15.0 in PATH: a new series …`.
    static func breakNote(_ changes: [String], device new: DeviceIdentity, path: String) -> String {
        "\(new.name) (\(new.udid)): \(changes.joined(separator: ", ")) in \(path): a new series starts "
            + "there, since launch times are not comparable across such a change."
    }

    /// When a folder's run started: run.json's start, else its earliest launch.
    static func start(of folder: ResultsFolder) -> Date? { folder.manifest?.startedAt ?? folder.earliestStart }

    /// The build a folder measured: run.json's app build, else the launches' `1.2 (34)` app version.
    static func build(of folder: ResultsFolder) -> String {
        if let build = folder.manifest?.app?.build { return build }
        let version = folder.firstSample?.appVersion ?? ""
        // `1.2 (34)`: the build is in the parentheses.
        if let open = version.lastIndex(of: "("), let close = version.lastIndex(of: ")"), open < close {
            return String(version[version.index(after: open)..<close])
        }
        return version
    }

    /// Negative, 0 or positive as build `a` sorts before, with or after `b` (numeric parts, then text).
    static func compareBuilds(_ a: String, _ b: String) -> Int {
        let x = a.split(whereSeparator: { !$0.isNumber }).map { Int($0) ?? 0 }
        let y = b.split(whereSeparator: { !$0.isNumber }).map { Int($0) ?? 0 }
        for i in 0..<max(x.count, y.count) {
            let l = i < x.count ? x[i] : -1
            let r = i < y.count ? y[i] : -1
            if l != r { return l < r ? -1 : 1 }
        }
        return a == b ? 0 : (a < b ? -1 : 1)
    }

    /// The series worth a chart: the metrics that say how long a launch took (total pre-main, first
    /// frame; else `wall_ms`, else every series), unless metrics were chosen.
    var keySeries: [Series] {
        guard settings.metrics.isEmpty else { return series }
        let preferred: [Metric] = [.totalPremainMs, .firstFrameMs]
        let key = series.filter { preferred.contains($0.metric) }
        if !key.isEmpty { return key }
        return series.filter { $0.metric == .wallMs }.isEmpty ? series : series.filter { $0.metric == .wallMs }
    }

    /// Notes for every output: the folders that were skipped and why, then what reading each folder had to say
    /// (lines skipped, a run still being written), naming the folder.
    package var notes: [String] {
        skipped.map { "Skipped \($0.path): \($0.reason)" } + folderNotes
    }
}
