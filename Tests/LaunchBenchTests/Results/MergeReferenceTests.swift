import Foundation
import Testing

@testable import LaunchBench

/// `merge` carries the shards' `reference/` folders (`run --reference-app`), from which the gate reports each
/// device's gap to the reference app.
@Suite struct MergeReferenceTests {
    private let root: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("merge-ref-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// A shard folder at `root/name` with the app's launches on `udid` and, when `referenceApp` is set, that
    /// app's launches in `reference/` with a raw log.
    private func shard(_ name: String, udid: String, referenceApp: String?) async throws -> URL {
        let folder = root.appendingPathComponent(name)
        let app = ResultsMergeTests.shard(name, udids: [udid], at: folder)
        try await write(app.folder.manifest, app.samples, to: folder)
        if let referenceApp {
            let reference = ResultsMergeTests.shard(name, udids: [udid], app: referenceApp, at: folder)
            let url = folder.appendingPathComponent(RunManifest.referenceFolderName)
            try await write(reference.folder.manifest, reference.samples, to: url)
            let log = url.appendingPathComponent("logs/\(udid)/0001-cold.log")
            try FileManager.default.createDirectory(
                at: log.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("reference log \(udid)".utf8).write(to: log)
        }
        return folder
    }

    private func write(_ manifest: RunManifest?, _ samples: [Sample], to folder: URL) async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = try ResultsStore(folder: folder)
        if let manifest { try await store.writeManifest(manifest) }
        try await store.append(contentsOf: samples)
        await store.close()
    }

    @Test func everyShardsReferenceLaunchesReachTheMergedFoldersGate() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let a = try await shard("a", udid: "A1", referenceApp: "com.example.empty")
        let b = try await shard("b", udid: "B1", referenceApp: "com.example.empty")
        let merged = root.appendingPathComponent("merged")
        let app = try ResultsMerge([a, b].map { try ResultsFolder.loadSamples($0) })
        try await write(app.manifest, app.samples, to: merged)

        let reference = try #require(try ResultsMerge.references(of: [a, b]))
        let notes = try await reference.write(into: merged)
        #expect(notes.isEmpty)

        let (folder, samples) = try ResultsFolder.loadSamples(merged)
        let input = GateInput(path: merged.path, folder: folder, samples: samples)
        #expect(input.referenceProblem == nil)
        #expect(input.referenceLaunches.count == 6)
        #expect(Set(input.referenceLaunches.devices.map(\.udid)) == ["A1", "B1"])
        let manifest = try #require(
            try ResultsFolder.loadSamples(merged.appendingPathComponent("reference")).folder.manifest)
        #expect(manifest.app?.bundleID == "com.example.empty")
        let log = merged.appendingPathComponent("reference/logs/B1/0001-cold.log")
        #expect(FileManager.default.contents(atPath: log.path) == Data("reference log B1".utf8))
    }

    @Test func aLoneShardsReferenceIsKeptAndNoneGivesNothing() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let a = try await shard("a", udid: "A1", referenceApp: nil)
        let b = try await shard("b", udid: "B1", referenceApp: "com.example.empty")
        let c = try await shard("c", udid: "C1", referenceApp: nil)
        #expect(try ResultsMerge.references(of: [a, c]) == nil)
        let reference = try #require(try ResultsMerge.references(of: [a, b, c]))
        #expect(reference.samples.count == 3)
        #expect(reference.manifest?.app?.bundleID == "com.example.empty")
    }

    @Test func shardsWithDifferentReferenceAppsAreRefused() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let a = try await shard("a", udid: "A1", referenceApp: "com.example.empty")
        let b = try await shard("b", udid: "B1", referenceApp: "com.example.other")
        #expect(
            throws: ResultsMerge.Refusal.differentReferenceApps(
                first: a.appendingPathComponent("reference").path, firstApp: "com.example.empty",
                second: b.appendingPathComponent("reference").path, secondApp: "com.example.other")
        ) {
            try ResultsMerge.references(of: [a, b])
        }
    }
}
