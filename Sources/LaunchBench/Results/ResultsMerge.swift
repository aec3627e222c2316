import Foundation

/// `launchbench merge SHARD… --output DIR`: the results folders of one build measured by several hosts (a CI
/// matrix with one job per device host) become one results folder, which `compare`, `report` and `trend`
/// then read like any other and which can be kept as the next baseline.
///
/// Each launch keeps its origin: its own `run_id` (the shard's run) in samples.jsonl, and its device's
/// outcome notes in run.json name the shard's folder, host, run and launchbench version. A phone cannot be
/// on two hosts at once, so the same UDID in two shards is refused; so is one folder named twice (its
/// launches would count twice), and so are shards of different apps or of different builds of one app (a
/// merged folder is one build's run: its reports and the gate speak of one version). A shard still being
/// written contributes its launches up to its last whole line, with the note `report` prints.
package struct ResultsMerge: Sendable {
    /// The merged run: every shard's devices, outcomes and launches, in shard order.
    package var manifest: RunManifest
    /// Every shard's launches, in shard order.
    package var samples: [Sample]
    /// What each shard's reading had to say, prefixed with the shard's folder.
    package var notes: [String]

    /// Why shards cannot be merged.
    package enum Refusal: Error, Sendable, Equatable {
        /// One device in two shards.
        case sameDevice(udid: String, first: String, second: String)
        /// Two apps.
        case differentApps(first: String, firstApp: String, second: String, secondApp: String)
        /// Two builds of the app (`1.2 (34)` and `1.2 (35)`).
        case differentBuilds(first: String, firstBuild: String, second: String, secondBuild: String)
        /// A shard whose launches (`launches` of them) name another build than its run.json: edited or mixed.
        case shardDisagrees(folder: String, runJSONBuild: String, launchBuild: String, launches: Int)
        /// One folder named twice, however spelled (`A`, `./A/`, a symbolic link to it).
        case sameFolder(first: String, second: String)
        /// Two reference apps (`--reference-app`) in the shards' `reference/` folders.
        case differentReferenceApps(first: String, firstApp: String, second: String, secondApp: String)
        /// Fewer than two folders.
        case tooFewShards(count: Int)
    }

    /// Merges `shards` (each a results folder read with its samples: `ResultsFolder.loadSamples`), refusing
    /// what cannot be one run.
    /// - Throws: ``Refusal``.
    package init(_ shards: [(folder: ResultsFolder, samples: [Sample])]) throws {
        guard shards.count >= 2 else { throw Refusal.tooFewShards(count: shards.count) }
        var owner: [String: String] = [:]
        var app: (folder: String, bundleID: String)?
        var build: (folder: String, build: String)?
        var named: [ShardIdentity: String] = [:]
        for shard in shards {
            let path = shard.folder.url.path
            let identity = ShardIdentity(shard.folder.url)
            if let first = named[identity] { throw Refusal.sameFolder(first: first, second: path) }
            named[identity] = path
            if let bundleID = Self.bundleID(of: shard) {
                if let first = app, first.bundleID != bundleID {
                    throw Refusal.differentApps(
                        first: first.folder, firstApp: first.bundleID, second: path, secondApp: bundleID)
                }
                app = app ?? (path, bundleID)
            }
            for shardBuild in try Self.builds(of: shard) {
                if let first = build, first.build != shardBuild {
                    throw Refusal.differentBuilds(
                        first: first.folder, firstBuild: first.build, second: path, secondBuild: shardBuild)
                }
                build = build ?? (path, shardBuild)
            }
            for udid in Self.devices(of: shard) {
                if let first = owner[udid], first != path {
                    throw Refusal.sameDevice(udid: udid, first: first, second: path)
                }
                owner[udid] = path
            }
        }
        samples = shards.flatMap(\.samples)
        notes = shards.flatMap { shard in shard.folder.notes.map { "\(shard.folder.url.path): \($0)" } }
        manifest = Self.manifest(shards)
        let versions = shards.map { Self.toolVersion(of: $0.folder) }
        if Set(versions).count > 1 {
            notes.append(
                "The shards were measured by different launchbench versions ("
                    + zip(shards, versions).map { "\($1) in \($0.folder.url.path)" }.joined(separator: ", ")
                    + "); each device's notes in the merged run say which. Measure every shard with one version "
                    + "when the numbers must compare exactly.")
        }
    }

    /// A folder as the file system knows it: its device and inode when it can be read, else its path with
    /// `.`, `..` and symbolic links resolved.
    private struct ShardIdentity: Hashable {
        let key: String

        init(_ url: URL) {
            let resolved = url.standardizedFileURL.resolvingSymlinksInPath()
            if let attributes = try? FileManager.default.attributesOfItem(atPath: resolved.path),
                let device = attributes[.systemNumber], let inode = attributes[.systemFileNumber]
            {
                key = "\(device):\(inode)"
            } else {
                key = resolved.path
            }
        }
    }

    /// The app builds a shard's launches name (`app_version`, `1.2 (34)`), which are what was measured; run.json's
    /// when they name none. A shard whose launches name another build than its run.json is refused: one of the
    /// two was edited or the folder mixes runs, and either way the merged folder would say the wrong build.
    private static func builds(of shard: (folder: ResultsFolder, samples: [Sample])) throws -> [String] {
        let app = shard.folder.manifest?.app
        // The app's own launches: an older folder may hold a --reference-app's launches too.
        let own = shard.samples.filter { sample in app?.bundleID.map { sample.appBundleID == $0 } ?? true }
        var seen = Set<String>()
        let launched = own.map(\.appVersion).filter { !$0.isEmpty && seen.insert($0).inserted }
        guard let listed = app.flatMap(Self.versionDescription) else { return launched }
        if let other = launched.first(where: { $0 != listed }) {
            throw Refusal.shardDisagrees(
                folder: shard.folder.url.path, runJSONBuild: listed, launchBuild: other,
                launches: own.filter { $0.appVersion == other }.count)
        }
        return [listed]
    }

    /// run.json's version and build as a launch's `app_version` spells them (`AppBundle.versionDescription`).
    private static func versionDescription(_ app: RunManifest.App) -> String? {
        switch (app.version ?? "", app.build ?? "") {
        case ("", ""): return nil
        case (let version, ""): return version
        case ("", let build): return build
        case (let version, let build): return "\(version) (\(build))"
        }
    }

    /// A shard's launchbench version, in words when run.json does not say.
    private static func toolVersion(of folder: ResultsFolder) -> String {
        folder.manifest?.toolVersion.map { "launchbench \($0)" } ?? "an unknown launchbench version"
    }

    private static func bundleID(of shard: (folder: ResultsFolder, samples: [Sample])) -> String? {
        shard.folder.manifest?.app?.bundleID ?? GateInput.mostFrequentApp(shard.samples)
    }

    /// The shard's devices: those run.json names and those its launches name.
    private static func devices(of shard: (folder: ResultsFolder, samples: [Sample])) -> [String] {
        var seen = Set<String>()
        return ((shard.folder.manifest?.devices.map(\.udid) ?? []) + shard.samples.map(\.deviceUDID)).filter {
            seen.insert($0).inserted
        }
    }

    private static func manifest(_ shards: [(folder: ResultsFolder, samples: [Sample])]) -> RunManifest {
        let manifests = shards.map { $0.folder.manifest }
        let known = manifests.compactMap { $0 }
        var outcomes: [RunManifest.DeviceOutcome] = []
        var devices: [DeviceInfo] = []
        for (shard, manifest) in zip(shards, manifests) {
            let origin =
                "Measured in shard \(shard.folder.url.path)"
                + (manifest?.host?.name.map { " on host \($0)" } ?? "")
                + (manifest?.runID.map { " (run \($0))" } ?? "") + " with \(toolVersion(of: shard.folder))."
            let listed = manifest?.devices ?? []
            devices += listed
            var shardOutcomes = manifest?.deviceOutcomes ?? listed.map { RunManifest.DeviceOutcome(udid: $0.udid) }
            // Devices with launches but not in run.json (a shard without one): still say where they came from.
            for udid in Self.devices(of: shard) where !shardOutcomes.contains(where: { $0.udid == udid }) {
                shardOutcomes.append(RunManifest.DeviceOutcome(udid: udid, outcome: .measured))
            }
            outcomes += shardOutcomes.map { outcome in
                var outcome = outcome
                outcome.notes.insert(origin, at: 0)
                return outcome
            }
        }
        var options = known.first?.options ?? RunManifest.Options()
        var other = options.other ?? [:]
        other["shards"] = shards.map(\.folder.url.path).joined(separator: ", ")
        other["shard tool versions"] = shards.map { "\($0.folder.url.path): \(toolVersion(of: $0.folder))" }
            .joined(separator: ", ")
        options.other = other
        // The tools that measured (one version when they agree), not the one that merged.
        var versions: [String] = []
        for version in known.compactMap(\.toolVersion) where !versions.contains(version) { versions.append(version) }
        let ended = known.count == shards.count && known.allSatisfy { $0.endedAt != nil }
        return RunManifest(
            runID: "merged-" + (known.compactMap(\.runID).first ?? UUID().uuidString),
            toolVersion: versions.isEmpty ? LaunchBenchVersion.current : versions.joined(separator: ", "),
            startedAt: known.compactMap(\.startedAt).min(),
            endedAt: ended ? known.compactMap(\.endedAt).max() : nil, host: nil, app: known.first?.app,
            options: options, devices: devices, deviceOutcomes: outcomes,
            interrupted: known.contains { $0.interrupted == true } ? true : nil)
    }
}

extension ResultsMerge.Refusal: LocalizedError {
    /// What cannot be merged and what to do instead.
    package var errorDescription: String? {
        switch self {
        case .sameDevice(let udid, let first, let second):
            return "Device \(udid) is in two shards, \(first) and \(second): one phone cannot be on two hosts at "
                + "once. Merge shards of different devices (was one folder passed twice, or a run repeated?)."
        case .differentApps(let first, let firstApp, let second, let secondApp):
            return Self.measuredDifferent("apps", firstApp, in: first, secondApp, in: second)
                + ". Merge the shards of one build of one app."
        case .differentBuilds(let first, let firstBuild, let second, let secondBuild):
            return Self.measuredDifferent("builds of the app", firstBuild, in: first, secondBuild, in: second)
                + ". A merged folder is one build's run; merge the shards of one build, and compare builds with "
                + "`launchbench compare BASELINE CURRENT`."
        case .shardDisagrees(let folder, let listed, let launched, let launches):
            return "\(folder) is not one build's run: its run.json says \(listed), but \(launches) of its launches "
                + "say \(launched). Measure that shard again, or merge only folders launchbench wrote unchanged."
        case .sameFolder(let first, let second):
            return "\(first) and \(second) are the same folder: its launches would count twice. Name each shard's "
                + "results folder once."
        case .differentReferenceApps(let first, let firstApp, let second, let secondApp):
            return Self.measuredDifferent("reference apps", firstApp, in: first, secondApp, in: second)
                + "; one merged folder's gaps would be to two apps. Measure every shard with the same "
                + "--reference-app, or move the odd shard's reference/ folder aside to merge without its gaps."
        case .tooFewShards(let count):
            return "merge needs at least two results folders (got \(count)); a single folder is already a run."
        }
    }

    /// `The shards measured different apps: A in first, B in second`, the start of each disagreement's message.
    private static func measuredDifferent(
        _ what: String, _ firstValue: String, in first: String, _ secondValue: String, in second: String
    ) -> String {
        "The shards measured different \(what): \(firstValue) in \(first), \(secondValue) in \(second)"
    }
}
