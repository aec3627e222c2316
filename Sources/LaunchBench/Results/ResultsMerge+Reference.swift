import Foundation

extension ResultsMerge {
    /// The shards' `reference/` folders (where `run --reference-app` keeps the reference app's launches, measured
    /// interleaved on the same devices) as one: `compare` and `run --baseline` report each device's gap to the
    /// reference app from `DIR/reference/` (`GateInput`), so a merged folder without it would lose the gaps its
    /// shards report. The gaps are per device and UDIDs are unique across shards, so the reference launches
    /// merge like the app's.
    package struct MergedReference: Sendable {
        /// The shards' `reference/` folders, in shard order.
        package var sources: [URL]
        /// The merged reference run.json (`nil` when the only shard with a reference folder has none).
        package var manifest: RunManifest?
        /// Every shard's reference launches, in shard order.
        package var samples: [Sample]
        /// What reading each reference folder had to say, prefixed with its path.
        package var notes: [String]
        /// The folder's name in each shard and in the merged folder: `reference`, or `base` for an A/B run's
        /// BASE build (`run --against`), which merges the same way.
        package var folderName = RunManifest.referenceFolderName

        /// Writes `destination/reference/`: run.json, samples.jsonl and the shards' reference logs, traces and
        /// raw kdebug files.
        /// - Returns: notes on folders that were not copied (see ``ResultsMerge/copyDeviceFolders(from:to:)``).
        /// - Throws: `LaunchBenchError.cannotWrite` when a write fails.
        package func write(into destination: URL) async throws -> [String] {
            let folder = destination.appendingPathComponent(folderName, isDirectory: true)
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw LaunchBenchError.cannotWrite(path: folder.path, reason: error.localizedDescription)
            }
            let store = try ResultsStore(folder: folder)
            if let manifest { try await store.writeManifest(manifest) }
            try await store.append(contentsOf: samples)
            await store.close()
            return try ResultsMerge.copyDeviceFolders(from: sources, to: folder)
        }
    }

    /// The reference folders of `shards` merged, or `nil` when no shard has one. Read before anything is written,
    /// so a refusal leaves no half-merged folder.
    /// - Throws: ``Refusal/differentReferenceApps(first:firstApp:second:secondApp:)`` when the shards measured
    ///   different reference apps (the merged gaps would mix two baselines), another ``Refusal`` when the
    ///   reference folders cannot be one run, and what reading one throws.
    package static func references(of shards: [URL]) throws -> MergedReference? {
        try companions(RunManifest.referenceFolderName, of: shards)
    }

    /// The `base/` folders of A/B shards (`run NEW --against BASE`) merged, as `references(of:)` merges
    /// `reference/`: the pairs are per device, and UDIDs are unique across shards.
    /// - Throws: a ``Refusal`` when the BASE launches cannot be one run (another app, another build), and what
    ///   reading one throws.
    package static func bases(of shards: [URL]) throws -> MergedReference? {
        try companions(RunManifest.baseFolderName, of: shards)
    }

    private static func companions(_ name: String, of shards: [URL]) throws -> MergedReference? {
        let sources = shards.map { $0.appendingPathComponent(name, isDirectory: true) }
            .filter {
                FileManager.default.fileExists(atPath: $0.appendingPathComponent(ResultsFolder.FileName.samples).path)
            }
        let loaded = try sources.map { try ResultsFolder.loadSamples($0) }
        guard let first = loaded.first else { return nil }
        guard loaded.count > 1 else {
            return MergedReference(
                sources: sources, manifest: first.folder.manifest, samples: first.samples,
                notes: first.folder.notes.map { "\(first.folder.url.path): \($0)" }, folderName: name)
        }
        do {
            let merged = try ResultsMerge(loaded)
            return MergedReference(
                sources: sources, manifest: merged.manifest, samples: merged.samples, notes: merged.notes,
                folderName: name)
        } catch Refusal.differentApps(let first, let firstApp, let second, let secondApp)
            where name == RunManifest.referenceFolderName
        {
            throw Refusal.differentReferenceApps(first: first, firstApp: firstApp, second: second, secondApp: secondApp)
        }
    }
}
