import Foundation

/// `summary.json`: the content of `summary.csv`, nested by device and launch kind, plus what the
/// run was (app, host, times) and the reader's notes. Keys are the CSV's column names; a
/// statistic that does not exist is `null`.
///
/// Shape: `{schema_version, tool_version, run: {...}|null, notes: [..], devices: [{device_udid,
/// device_name, product_type, os_version, launch_kinds: {cold: {launches, failures, no_metrics,
/// failures_by_status: {status: count}, metrics: {total_premain_ms: {n, failures, min, p25,
/// median, mean, p75, p90, max, stddev, cv_percent, ci95_low, ci95_high,
/// ci95_coverage_percent}}, images: {launches_with_initializer_list, launches_with_libraries,
/// bundle_dylibs: [..], advised_maximum_bundle_dylibs, note, images: [{image, in_bundle,
/// launches_loaded, launches_listed, median_initializer_ms, p90_initializer_ms}]}}}]}`.
package struct SummaryDocument: Sendable, Hashable, Codable {
    /// The `schema_version` this version of launchbench writes.
    static let currentSchemaVersion = 1

    /// `schema_version`: the document's format version (`currentSchemaVersion` when written by this build).
    package var schemaVersion: Int
    /// The tool that computed this summary.
    var toolVersion: String
    /// `run`: what the run was, from `run.json` and else the first launch; `null` when the folder has neither.
    package var run: RunInfo?
    /// `notes`: what the reader could not read or had to assume (missing `run.json`, unreadable lines…).
    package var notes: [String]
    /// `devices`: one entry per device, in report order (`run.json`'s order, then first appearance in the samples).
    package var devices: [Device]

    /// `run`: the run's identity; a field is `null` when neither `run.json` nor the samples record it.
    package struct RunInfo: Sendable, Hashable, Codable {
        /// `run_id`: the run's ID (a lowercase UUID unless given), the `run_id` column of `samples.csv`.
        package var runID: String?
        /// `tool_version`: the launchbench that measured the run (`run.json` only); may differ from the
        /// document's own top-level `tool_version`, the one that computed the summary.
        package var toolVersion: String?
        /// `started_at`: when the run started (`run.json`, else the first launch), ISO 8601 UTC with ms.
        package var startedAt: Date?
        /// `ended_at`: when the run ended (`run.json` only); `null` for a run still going or killed before it finished.
        package var endedAt: Date?
        /// `app_bundle_id`: the app's `CFBundleIdentifier`.
        package var appBundleID: String?
        /// `app_version`: `CFBundleShortVersionString` from `run.json`; without it, the first launch's app version,
        /// which also carries the build (`1.2 (34)`).
        package var appVersion: String?
        /// `app_build`: `CFBundleVersion`, from `run.json` only.
        package var appBuild: String?
        /// `host`: the name of the computer that drove the devices, from `run.json` only.
        package var host: String?

        enum CodingKeys: String, CodingKey {
            case runID = "run_id"
            case toolVersion = "tool_version"
            case startedAt = "started_at"
            case endedAt = "ended_at"
            case appBundleID = "app_bundle_id"
            case appVersion = "app_version"
            case appBuild = "app_build"
            case host
        }

        /// Writes every key, absent values as `null`.
        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(runID, forKey: .runID)
            try c.encode(toolVersion, forKey: .toolVersion)
            try c.encode(startedAt, forKey: .startedAt)
            try c.encode(endedAt, forKey: .endedAt)
            try c.encode(appBundleID, forKey: .appBundleID)
            try c.encode(appVersion, forKey: .appVersion)
            try c.encode(appBuild, forKey: .appBuild)
            try c.encode(host, forKey: .host)
        }
    }

    /// One entry of `devices`: the device (the `summary.csv` device columns) and its launches by kind.
    package struct Device: Sendable, Hashable, Codable {
        /// `device_udid`: the device's UDID.
        package var udid: String
        /// `device_name`: the user-set name, as the device's latest launch reported it.
        package var name: String
        /// `product_type`: the model identifier (`iPhone12,1`).
        package var productType: String
        /// `os_version`: the iOS version the device reported (`14.8`).
        package var osVersion: String
        /// By launch kind (`cold`, `warm`).
        package var launchKinds: [String: Kind]

        enum CodingKeys: String, CodingKey {
            case udid = "device_udid"
            case name = "device_name"
            case productType = "product_type"
            case osVersion = "os_version"
            case launchKinds = "launch_kinds"
        }
    }

    /// One device's launches of one kind (a value of `launch_kinds`).
    package struct Kind: Sendable, Hashable, Codable {
        /// `launches`: every launch of this kind, failed or not.
        package var launches: Int
        /// `failures`: launches with a failure status (`timeout`, `crashed`, `install-failed`, …).
        package var failures: Int
        /// `no_metrics`: launches that ran but printed nothing to measure; neither failures nor numbers.
        package var noMetrics: Int
        /// `failures_by_status`: failed launches by status (`{"timeout": 2}`); only statuses that occurred.
        package var failuresByStatus: [String: Int]
        /// By metric column name (`total_premain_ms`, …).
        package var metrics: [String: Statistics]
        /// Bundle images and initializer times by image (the rows of `images.csv`).
        package var images: Images?

        enum CodingKeys: String, CodingKey {
            case launches, failures
            case noMetrics = "no_metrics"
            case failuresByStatus = "failures_by_status"
            case metrics
            case images
        }
    }

    /// `images`: what the launches loaded and initialised (see `ImageStatistics`).
    package struct Images: Sendable, Hashable, Codable {
        /// `launches_with_initializer_list`: launches that did not fail and for which dyld printed an initializer list.
        var launchesWithInitializerList: Int
        /// `launches_with_libraries`: launches that did not fail and whose library list was captured
        /// (`DYLD_PRINT_LIBRARIES`); 0 means `bundle_dylibs` is unknown, not empty.
        var launchesWithLibraries: Int
        /// Embedded dylibs loaded at launch (bundle images but the executable), and Apple's advice.
        var bundleDylibs: [String]
        /// `advised_maximum_bundle_dylibs`: Apple's advice on embedded dylibs (at most about 6).
        var advisedMaximumBundleDylibs: Int
        /// `note`: why an unlisted initializer is not 0 ms (`ImageStatistics.thresholdNote`), the same text always.
        package var note: String
        /// `images`: one entry per image, slowest initializer median first (the order of `images.csv`).
        package var images: [Image]

        enum CodingKeys: String, CodingKey {
            case launchesWithInitializerList = "launches_with_initializer_list"
            case launchesWithLibraries = "launches_with_libraries"
            case bundleDylibs = "bundle_dylibs"
            case advisedMaximumBundleDylibs = "advised_maximum_bundle_dylibs"
            case note, images
        }

        init(_ s: ImageStatistics) {
            launchesWithInitializerList = s.launchesWithInitializerList
            launchesWithLibraries = s.launchesWithLibraries
            bundleDylibs = s.bundleDylibs
            advisedMaximumBundleDylibs = ImageStatistics.advisedBundleDylibs
            note = ImageStatistics.thresholdNote
            images = s.images.map(Image.init)
        }
    }

    /// One image; `median_initializer_ms` / `p90_initializer_ms` are `null` when no launch listed it.
    package struct Image: Sendable, Hashable, Codable {
        /// `image`: the path inside the app bundle for a bundle image, else the name dyld's initializer list prints.
        package var image: String
        /// `in_bundle`: `true` when the image was loaded from inside the `.app` folder.
        package var inBundle: Bool
        /// `launches_loaded`: launches whose library list named the image.
        var launchesLoaded: Int
        /// `launches_listed`: launches whose initializer list named the image.
        var launchesListed: Int
        /// `median_initializer_ms`: median initializer time over the launches that listed the image, in ms.
        var medianInitializerMs: Double?
        /// `p90_initializer_ms`: 90th percentile of those initializer times, in ms.
        var p90InitializerMs: Double?

        enum CodingKeys: String, CodingKey {
            case image
            case inBundle = "in_bundle"
            case launchesLoaded = "launches_loaded"
            case launchesListed = "launches_listed"
            case medianInitializerMs = "median_initializer_ms"
            case p90InitializerMs = "p90_initializer_ms"
        }

        init(_ i: ImageStatistics.Image) {
            image = i.image
            inBundle = i.inBundle
            launchesLoaded = i.launchesLoaded
            launchesListed = i.launchesListed
            medianInitializerMs = i.medianInitializerMs
            p90InitializerMs = i.p90InitializerMs
        }

        /// Writes every key, the initializer times as `null` when no launch listed the image.
        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(image, forKey: .image)
            try c.encode(inBundle, forKey: .inBundle)
            try c.encode(launchesLoaded, forKey: .launchesLoaded)
            try c.encode(launchesListed, forKey: .launchesListed)
            try c.encode(medianInitializerMs, forKey: .medianInitializerMs)
            try c.encode(p90InitializerMs, forKey: .p90InitializerMs)
        }
    }

    /// One metric's statistics (a value of `metrics`): a `summary.csv` row's numbers, plus the interval's coverage.
    package struct Statistics: Sendable, Hashable, Codable {
        /// `n`: launches that measured the metric.
        package var n: Int
        /// `failures`: failed launches of this device and kind (the same for every metric).
        package var failures: Int
        /// `min` … `ci95_high`: as the `summary.csv` columns (see `MetricStatistics`), in ms except `cv_percent`;
        /// `null` when n = 0, `stddev` and `cv_percent` also when n < 2, the interval also when n < 6.
        package var min, p25, median, mean, p75, p90, max, stddev, cvPercent, ci95Low, ci95High: Double?
        /// The exact coverage of `[ci95_low, ci95_high]` in percent (≥ 95).
        package var ci95CoveragePercent: Double?

        enum CodingKeys: String, CodingKey {
            case n, failures, min, p25, median, mean, p75, p90, max, stddev
            case cvPercent = "cv_percent"
            case ci95Low = "ci95_low"
            case ci95High = "ci95_high"
            case ci95CoveragePercent = "ci95_coverage_percent"
        }

        init(_ s: MetricStatistics) {
            n = s.n
            failures = s.failures
            min = s.min
            p25 = s.p25
            median = s.median
            mean = s.mean
            p75 = s.p75
            p90 = s.p90
            max = s.max
            stddev = s.stddev
            cvPercent = s.cvPercent
            ci95Low = s.ci95?.low
            ci95High = s.ci95?.high
            ci95CoveragePercent = s.ci95.map { $0.coverage * 100 }
        }

        // Explicit nulls: every statistic is always present, so readers need no schema guessing.
        /// Writes every key, a missing statistic as an explicit `null`.
        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(n, forKey: .n)
            try c.encode(failures, forKey: .failures)
            for (key, value) in [
                (CodingKeys.min, min), (.p25, p25), (.median, median), (.mean, mean), (.p75, p75), (.p90, p90),
                (.max, max), (.stddev, stddev), (.cvPercent, cvPercent), (.ci95Low, ci95Low), (.ci95High, ci95High),
                (.ci95CoveragePercent, ci95CoveragePercent),
            ] {
                try c.encode(value, forKey: key)
            }
        }
    }

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version"
        case toolVersion = "tool_version"
        case run, notes, devices
    }

    /// Writes every top-level key, `run` as `null` when unknown.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(schemaVersion, forKey: .schemaVersion)
        try c.encode(toolVersion, forKey: .toolVersion)
        try c.encode(run, forKey: .run)
        try c.encode(notes, forKey: .notes)
        try c.encode(devices, forKey: .devices)
    }

    /// The document for a results folder.
    package init(folder: ResultsFolder, summary: RunSummary) {
        schemaVersion = Self.currentSchemaVersion
        toolVersion = LaunchBenchVersion.current
        notes = folder.notes
        let first = folder.firstSample
        let manifest = folder.manifest
        if manifest != nil || first != nil {
            run = RunInfo(
                runID: manifest?.runID ?? first?.runID, toolVersion: manifest?.toolVersion,
                startedAt: manifest?.startedAt ?? first?.startedAt, endedAt: manifest?.endedAt,
                appBundleID: manifest?.app?.bundleID ?? first?.appBundleID,
                appVersion: manifest?.app?.version ?? first?.appVersion, appBuild: manifest?.app?.build,
                host: manifest?.host?.name)
        }
        devices = summary.devices.map { device in
            Device(
                udid: device.device.udid, name: device.device.name, productType: device.device.productType,
                osVersion: device.device.osVersion,
                launchKinds: Dictionary(
                    uniqueKeysWithValues: device.kinds.map { kind in
                        (
                            kind.kind.rawValue,
                            Kind(
                                launches: kind.launches, failures: kind.failures, noMetrics: kind.withoutMetrics,
                                failuresByStatus: Dictionary(
                                    uniqueKeysWithValues: kind.failuresByStatus.map { ($0.key.rawValue, $0.value) }),
                                metrics: Dictionary(
                                    uniqueKeysWithValues: summary.metrics.compactMap { metric in
                                        kind.metrics[metric].map { (metric.rawValue, Statistics($0)) }
                                    }),
                                images: Images(kind.images))
                        )
                    }))
        }
    }

    /// Pretty, sorted-key JSON (`JSONCoding`), ending with a newline.
    func jsonData() throws -> Data {
        try JSONCoding.encoder(pretty: true).encode(self) + Data("\n".utf8)
    }
}
