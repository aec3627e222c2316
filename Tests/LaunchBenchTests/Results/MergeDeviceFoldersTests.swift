import Foundation
import Testing

@testable import LaunchBench

/// `merge` copies what the merged samples and reports point into: logs, kdebug timelines, raw kdebug files.
@Suite struct MergeDeviceFoldersTests {
    private let root: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("merge-files-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    private func write(_ text: String, to relative: String, in folder: URL) throws {
        let url = folder.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    private func read(_ relative: String, in folder: URL) -> String? {
        FileManager.default.contents(atPath: folder.appendingPathComponent(relative).path).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    @Test func logsTracesAndKdebugFilesOfEveryShardAreCopied() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let a = root.appendingPathComponent("a")
        let b = root.appendingPathComponent("b")
        let merged = root.appendingPathComponent("merged")
        try write("log A1", to: "logs/A1/0001-cold.log", in: a)
        try write(
            "{\"traceEvents\":[]}", to: ResultsStore.tracePath(udid: "A1", iteration: 1, kind: .cold, launchIndex: 0),
            in: a)
        try write("log B1", to: "logs/B1/0001-cold.log", in: b)
        try write("{}", to: "traces/B1/0002-warm.json", in: b)
        try write("raw", to: "kdebug/B1/0001-cold.kdebug", in: b)
        try FileManager.default.createDirectory(at: merged, withIntermediateDirectories: true)

        let notes = try ResultsMerge.copyDeviceFolders(from: [a, b], to: merged)
        #expect(notes.isEmpty)
        #expect(read("logs/A1/0001-cold.log", in: merged) == "log A1")
        #expect(read("logs/B1/0001-cold.log", in: merged) == "log B1")
        #expect(read("traces/A1/0001-cold.json", in: merged) == "{\"traceEvents\":[]}")
        #expect(read("traces/B1/0002-warm.json", in: merged) == "{}")
        #expect(read("kdebug/B1/0001-cold.kdebug", in: merged) == "raw")
    }

    @Test func aFolderTwoShardsHoldIsKeptFromTheFirstAndNamed() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let a = root.appendingPathComponent("a")
        let b = root.appendingPathComponent("b")
        let merged = root.appendingPathComponent("merged")
        try write("first", to: "traces/X/0001-cold.json", in: a)
        try write("second", to: "traces/X/0001-cold.json", in: b)
        let notes = try ResultsMerge.copyDeviceFolders(from: [a, b], to: merged)
        #expect(read("traces/X/0001-cold.json", in: merged) == "first")
        #expect(
            notes == [
                "\(b.path)/traces/X was not copied: the merged folder already holds traces/X from another shard."
            ])
    }

    @Test func overwriteRemovesAnEarlierRunsTracesAndKdebugFiles() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let previous = root.appendingPathComponent("previous")
        try FileManager.default.createDirectory(at: previous, withIntermediateDirectories: true)
        let store = try ResultsStore(folder: previous)
        try await store.writeManifest(RunManifest(runID: "r1"))
        await store.close()
        try write("old", to: "traces/U1/0001-cold.json", in: previous)
        try write("old", to: "kdebug/U1/0001-cold.kdebug", in: previous)
        try write("mine", to: "notes.txt", in: previous)
        _ = try OutputFolder.prepare(output: previous, workingDirectory: root, overwrite: true)
        #expect(read("traces/U1/0001-cold.json", in: previous) == nil)
        #expect(read("kdebug/U1/0001-cold.kdebug", in: previous) == nil)
        #expect(read("notes.txt", in: previous) == "mine")
    }
}
