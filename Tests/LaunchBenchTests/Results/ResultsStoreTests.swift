import Foundation
import Testing

@testable import LaunchBench

@Suite struct ResultsStoreTests {
    private let root: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "launchbench-results-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    private func manifest() -> RunManifest {
        let app = AppBundle(
            url: URL(fileURLWithPath: "/a/Sample.app"), packaging: .appFolder, bundleID: "com.example.sample",
            shortVersion: "1.0", build: "1", executable: "Sample", bundleName: "Sample.app", frameworks: [])
        let options = RunManifest.Options(
            iterations: 3, cold: "reinstall", warm: 1, timeoutSeconds: 30, environment: ["A=b c"],
            other: ["grace (s)": "0.5"])
        let device = DeviceInfo(
            udid: "U1", name: "Phone", productType: "iPhone12,1", osVersion: "14.8", buildVersion: "18H17")
        return RunManifest(
            runID: "r1", startedAt: Date(timeIntervalSince1970: 1_700_000_000), app: RunManifest.App(app),
            options: options,
            devices: [device],
            deviceOutcomes: [RunManifest.DeviceOutcome(udid: "U1", outcome: .measured, notes: ["note"])],
            interrupted: false)
    }

    private func sample(_ iteration: Int) -> Sample {
        Sample(
            runID: "r1", deviceUDID: "U1", deviceName: "Phone", productType: "iPhone12,1", osVersion: "14.8",
            appBundleID: "com.example.sample", appVersion: "1.0 (1)", iteration: iteration, kind: .cold, status: .ok,
            metrics: [.totalPremainMs: Double(iteration)], startedAt: Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test func defaultFolderIsATimestampUnderLaunchbenchResults() throws {
        let date = Date(timeIntervalSince1970: 1_763_778_615)  // 2025-11-22T02:30:15Z
        let first = try OutputFolder.prepare(output: nil, workingDirectory: root, now: date)
        let second = try OutputFolder.prepare(output: nil, workingDirectory: root, now: date)
        #expect(first.path.hasSuffix("launchbench-results/2025-11-22T02-30-15Z"))
        #expect(second.path.hasSuffix("launchbench-results/2025-11-22T02-30-15Z-2"))
        #expect(FileManager.default.fileExists(atPath: second.path))
    }

    private func makePreviousResults(_ name: String) async throws -> URL {
        let previous = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: previous.appendingPathComponent("logs/U1"), withIntermediateDirectories: true)
        let store = try ResultsStore(folder: previous)
        try await store.writeManifest(manifest())
        try await store.append(sample(1))
        await store.close()
        for file in ["samples.csv", "summary.csv", "summary.json", "report.html"] {
            try Data("x".utf8).write(to: previous.appendingPathComponent(file))
        }
        try FileManager.default.createDirectory(
            at: previous.appendingPathComponent("reference"), withIntermediateDirectories: true)
        return previous
    }

    @Test func outputMayBeNewEmptyOrAPreviousResultsFolderWithOverwrite() async throws {
        let fresh = root.appendingPathComponent("a/b/new")
        #expect(try OutputFolder.prepare(output: fresh, workingDirectory: root) == fresh.standardizedFileURL)
        #expect(try OutputFolder.prepare(output: fresh, workingDirectory: root) == fresh.standardizedFileURL)  // empty

        let previous = try await makePreviousResults("previous")
        #expect(OutputFolder.isResultsFolder(previous))
        _ = try OutputFolder.prepare(output: previous, workingDirectory: root, overwrite: true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: previous.path).isEmpty)
    }

    /// Fault matrix: `--output` naming an earlier results folder that also held the user's files deleted them.
    @Test func anEarlierResultsFolderIsKeptWithoutOverwriteAndTheUsersFilesAlways() async throws {
        let previous = try await makePreviousResults("earlier")
        try Data("mine".utf8).write(to: previous.appendingPathComponent("notes.txt"))
        try FileManager.default.createDirectory(
            at: previous.appendingPathComponent("extra"), withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: previous.appendingPathComponent("extra/plot.py"))
        let before = try FileManager.default.contentsOfDirectory(atPath: previous.path).sorted()

        #expect {
            try OutputFolder.prepare(output: previous, workingDirectory: root)
        } throws: { error in
            guard case LaunchBenchError.outputFolderInUse(_, let reason)? = error as? LaunchBenchError else {
                return false
            }
            return reason.contains("earlier run") && reason.contains("--overwrite")
                && (error as? LaunchBenchError)?.errorDescription?.contains("--overwrite") == true
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: previous.path).sorted() == before)

        _ = try OutputFolder.prepare(output: previous, workingDirectory: root, overwrite: true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: previous.path).sorted() == ["extra", "notes.txt"])
        #expect(try String(contentsOf: previous.appendingPathComponent("extra/plot.py"), encoding: .utf8) == "mine")
    }

    /// `--overwrite` left `images.csv` and other exports of the earlier run behind: every file the exports write,
    /// and every per-device folder, is removed; the user's file stays.
    @Test func overwriteRemovesEveryExportTheEarlierRunWrote() async throws {
        let previous = try await makePreviousResults("exported")
        try ResultExports.writeAll(resultsFolder: previous)
        for folder in ResultsMerge.deviceFolders {
            try FileManager.default.createDirectory(
                at: previous.appendingPathComponent("\(folder)/U1"), withIntermediateDirectories: true)
        }
        try Data("mine".utf8).write(to: previous.appendingPathComponent("notes.txt"))
        let written = try FileManager.default.contentsOfDirectory(atPath: previous.path)
        for export in ExportFile.allCases.map(\.fileName) + ["images.csv", "initializers.csv", "traces", "kdebug"] {
            #expect(written.contains(export), "the earlier run wrote \(export)")
        }

        _ = try OutputFolder.prepare(output: previous, workingDirectory: root, overwrite: true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: previous.path) == ["notes.txt"])
    }

    /// Fault matrix: `run --baseline X --output X` compared, then deleted the baseline.
    @Test func theBaselineIsNeverTheOutputNorInsideItNorAroundIt() async throws {
        let baseline = try await makePreviousResults("baseline")
        let link = root.appendingPathComponent("link-to-baseline")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: baseline)
        let cases: [(URL, [URL], String)] = [
            (baseline, [baseline], "it is"),
            (link, [baseline], "it is"),
            (root, [baseline], "it holds"),
            (baseline.appendingPathComponent("new"), [baseline], "it lies inside"),
            (baseline, [baseline.appendingPathComponent("summary.json").deletingLastPathComponent()], "it is"),
        ]
        for (output, protected, relation) in cases {
            #expect {
                try OutputFolder.prepare(output: output, workingDirectory: root, overwrite: true, protected: protected)
            } throws: { error in
                guard case LaunchBenchError.outputIsBaseline(_, let found, _)? = error as? LaunchBenchError else {
                    return false
                }
                return found == relation
            }
        }
        #expect(OutputFolder.isResultsFolder(baseline))
        #expect(FileManager.default.fileExists(atPath: baseline.appendingPathComponent("report.html").path))
        // A sibling folder is fine.
        let sibling = root.appendingPathComponent("baseline-2")
        #expect(try OutputFolder.prepare(output: sibling, workingDirectory: root, protected: [baseline]) == sibling)
    }

    @Test func refusesAForeignFolderOrAFile() throws {
        let foreign = root.appendingPathComponent("mine")
        try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: foreign.appendingPathComponent("thesis.tex"))
        #expect(
            throws: LaunchBenchError.outputFolderInUse(
                path: foreign.path, reason: "it already holds thesis.tex and is not a launchbench results folder")
        ) { try OutputFolder.prepare(output: foreign, workingDirectory: root) }
        #expect(FileManager.default.fileExists(atPath: foreign.appendingPathComponent("thesis.tex").path))

        let file = root.appendingPathComponent("file")
        try Data().write(to: file)
        #expect(throws: LaunchBenchError.outputFolderInUse(path: file.path, reason: "it is a file, not a folder")) {
            try OutputFolder.prepare(output: file, workingDirectory: root)
        }
    }

    @Test func samplesAreAppendedAsLinesAndTheManifestRoundTrips() async throws {
        let store = try ResultsStore(folder: root)
        try await store.writeManifest(manifest())
        for iteration in 1...3 { try await store.append(sample(iteration)) }
        // Every line is on disk before close: read while the store is still open.
        let lines = try String(contentsOf: root.appendingPathComponent("samples.jsonl"), encoding: .utf8).split(
            separator: "\n")
        #expect(lines.count == 3)
        let decoded = try lines.map { try JSONCoding.decoder().decode(Sample.self, from: Data($0.utf8)) }
        #expect(decoded == [sample(1), sample(2), sample(3)])
        await store.close()

        let data = try Data(contentsOf: root.appendingPathComponent("run.json"))
        let read = try JSONCoding.decoder().decode(RunManifest.self, from: data)
        #expect(read == manifest())
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["runID"] as? String == "r1" && json["interrupted"] as? Bool == false)
        #expect(OutputFolder.isResultsFolder(root))
    }

    @Test func launchLogsAreNamedByIterationAndKindAndWrittenVerbatim() throws {
        #expect(ResultsStore.logPath(udid: "U1", iteration: 1, kind: .cold, launchIndex: 0) == "logs/U1/0001-cold.log")
        #expect(ResultsStore.logPath(udid: "U1", iteration: 12, kind: .warm, launchIndex: 1) == "logs/U1/0012-warm.log")
        #expect(
            ResultsStore.logPath(udid: "U1", iteration: 12, kind: .warm, launchIndex: 3) == "logs/U1/0012-warm3.log")
        #expect(
            ResultsStore.logPath(udid: "../x", iteration: 1, kind: .cold, launchIndex: 0) == "logs/___x/0001-cold.log")

        let store = try ResultsStore(folder: root)
        let log = try store.makeLaunchLog(udid: "U1", iteration: 2, kind: .warm, launchIndex: 2)
        let bytes: [UInt8] = Array("é".utf8)
        log.write([bytes[0]])
        log.write([bytes[1]] + Array(" and raw \u{0}\n".utf8))
        let partial = try Data(contentsOf: log.url)
        #expect(partial == Data("é and raw \u{0}\n".utf8))
        log.close()
        log.write(Array("ignored".utf8))
        #expect(try Data(contentsOf: root.appendingPathComponent("logs/U1/0002-warm2.log")) == partial)
    }

    /// A launch's timeline and raw kdebug appear whole under their names, over an older file of the same launch,
    /// with nothing left beside them; a folder that cannot be written is named in the error.
    @Test func aLaunchsFilesAreRenamedIntoPlaceWhole() throws {
        let store = try ResultsStore(folder: root)
        let trace = Data(repeating: 0x7B, count: 100_000)
        #expect(
            try store.writeTrace(Data("old".utf8), udid: "U1", iteration: 3, kind: .cold, launchIndex: 0)
                == "traces/U1/0003-cold.json")
        _ = try store.writeTrace(trace, udid: "U1", iteration: 3, kind: .cold, launchIndex: 0)
        #expect(try Data(contentsOf: root.appendingPathComponent("traces/U1/0003-cold.json")) == trace)
        let raw: [UInt8] = Array(0...255)
        #expect(
            try store.writeRawKdebug(raw, udid: "U1", iteration: 3, kind: .warm, launchIndex: 1)
                == "kdebug/U1/0003-warm.kdebug")
        #expect(try Data(contentsOf: root.appendingPathComponent("kdebug/U1/0003-warm.kdebug")) == Data(raw))
        for folder in ["traces/U1", "kdebug/U1"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)
            #expect(names.count == 1, "\(folder): \(names)")
        }
        // A file where the device's folder should be: the write fails and says where.
        try Data().write(to: root.appendingPathComponent("traces/U2"))
        #expect {
            try store.writeTrace(trace, udid: "U2", iteration: 1, kind: .cold, launchIndex: 0)
        } throws: { error in
            "\(error)".contains("traces/U2")
        }
    }

    /// A launch re-judged after the fact is rewritten in place; every other line stays, and appends go on.
    @Test func rewriteChangesOnlyTheChosenLaunchAndAppendsContinue() async throws {
        let store = try ResultsStore(folder: root)
        for iteration in 1...3 { try await store.append(sample(iteration)) }
        let changed = try await store.rewrite {
            $0.iteration == 2
        } _: { sample in
            sample.status = .timeout
            sample.message = "re-judged"
        }
        #expect(changed.map(\.iteration) == [2] && changed.map(\.status) == [.timeout])
        try await store.append(sample(4))
        await store.close()
        let folder = try ResultsFolder.loadSamples(root)
        #expect(folder.samples.map(\.iteration) == [1, 2, 3, 4])
        #expect(folder.samples.map(\.status) == [.ok, .timeout, .ok, .ok])
        #expect(folder.samples[1].message == "re-judged")
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent(".samples.jsonl.rewrite").path))
    }
}
