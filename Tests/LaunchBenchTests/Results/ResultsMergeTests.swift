import Foundation
import Testing

@testable import LaunchBench

@Suite struct ResultsMergeTests {
    static func sample(
        _ udid: String, run: String, app: String = "com.example.app", version: String = "1.0 (1)", iteration: Int = 1
    ) -> Sample {
        Sample(
            runID: run, deviceUDID: udid, deviceName: "Phone \(udid)", productType: "iPhone12,1", osVersion: "14.8",
            appBundleID: app, appVersion: version, iteration: iteration, kind: .cold, status: .ok,
            metrics: [.totalPremainMs: 300], startedAt: Date(timeIntervalSince1970: 1000))
    }

    static func shard(
        _ name: String, udids: [String], app: String = "com.example.app", build: String = "1", tool: String = "1.0.0",
        ended: Bool = true, notes: [String] = [], at url: URL? = nil
    ) -> (folder: ResultsFolder, samples: [Sample]) {
        let manifest = RunManifest(
            runID: "run-\(name)", toolVersion: tool, startedAt: Date(timeIntervalSince1970: 1000),
            endedAt: ended ? Date(timeIntervalSince1970: 2000) : nil, host: RunManifest.Host(name: "host-\(name)"),
            app: RunManifest.App(bundleID: app, name: "App", version: "1.0", build: build, frameworks: []),
            devices: udids.map {
                DeviceInfo(
                    udid: $0, name: "Phone \($0)", productType: "iPhone12,1", osVersion: "14.8", buildVersion: "18H17")
            },
            deviceOutcomes: udids.map { RunManifest.DeviceOutcome(udid: $0, outcome: .measured) })
        let samples = udids.flatMap { udid in
            (1...3).map { sample(udid, run: "run-\(name)", app: app, version: "1.0 (\(build))", iteration: $0) }
        }
        let folder = ResultsFolder(
            url: url ?? URL(fileURLWithPath: "/shards/\(name)"), manifest: manifest, samples: samples, notes: notes)
        return (folder, samples)
    }

    @Test func everyLaunchKeepsItsShardAndEveryDeviceSaysWhereItWasMeasured() throws {
        let merged = try ResultsMerge([Self.shard("a", udids: ["A1", "A2"]), Self.shard("b", udids: ["B1"])])
        #expect(merged.samples.count == 9)
        #expect(Set(merged.samples.map(\.runID)) == ["run-a", "run-b"])
        #expect(merged.manifest.devices.map(\.udid) == ["A1", "A2", "B1"])
        let notes = try #require(merged.manifest.deviceOutcomes).map { $0.notes.first ?? "" }
        #expect(notes[2] == "Measured in shard /shards/b on host host-b (run run-b) with launchbench 1.0.0.")
        #expect(merged.manifest.toolVersion == "1.0.0")
        #expect(merged.notes.isEmpty)
        #expect(merged.manifest.endedAt == Date(timeIntervalSince1970: 2000))
        #expect(merged.manifest.options?.other?["shards"] == "/shards/a, /shards/b")
    }

    @Test func aShardStillBeingWrittenIsMergedWithItsNotesAndNoEndTime() throws {
        let partial = Self.shard("b", udids: ["B1"], ended: false, notes: ["samples.jsonl line 4 is cut off"])
        let merged = try ResultsMerge([Self.shard("a", udids: ["A1"]), partial])
        #expect(merged.notes == ["/shards/b: samples.jsonl line 4 is cut off"])
        #expect(merged.manifest.endedAt == nil)
    }

    @Test func theSameDeviceInTwoShardsIsRefused() {
        #expect(throws: ResultsMerge.Refusal.sameDevice(udid: "A1", first: "/shards/a", second: "/shards/b")) {
            try ResultsMerge([Self.shard("a", udids: ["A1"]), Self.shard("b", udids: ["B1", "A1"])])
        }
    }

    @Test func shardsOfDifferentAppsAreRefusedNamingBoth() throws {
        let error = #expect(throws: ResultsMerge.Refusal.self) {
            try ResultsMerge([Self.shard("a", udids: ["A1"]), Self.shard("b", udids: ["B1"], app: "com.other")])
        }
        let text = try #require(error?.localizedDescription)
        #expect(text.contains("com.example.app in /shards/a") && text.contains("com.other in /shards/b"))
    }

    @Test func shardsOfDifferentBuildsAreRefusedNamingBoth() throws {
        let error = #expect(throws: ResultsMerge.Refusal.self) {
            try ResultsMerge([
                Self.shard("a", udids: ["A1"], build: "34"), Self.shard("b", udids: ["B1"], build: "35"),
            ])
        }
        #expect(
            error
                == .differentBuilds(
                    first: "/shards/a", firstBuild: "1.0 (34)", second: "/shards/b", secondBuild: "1.0 (35)"))
        #expect(try #require(error?.localizedDescription).contains("1.0 (34) in /shards/a, 1.0 (35) in /shards/b"))
    }

    @Test func shardsWithoutRunJSONAreComparedByTheirLaunchesBuilds() {
        var a = Self.shard("a", udids: ["A1"])
        var b = Self.shard("b", udids: ["B1"])
        a.folder.manifest = nil
        b.folder.manifest = nil
        b.samples = b.samples.map { sample in
            var sample = sample
            sample.appVersion = "1.1"
            return sample
        }
        #expect(
            throws: ResultsMerge.Refusal.differentBuilds(
                first: "/shards/a", firstBuild: "1.0 (1)", second: "/shards/b", secondBuild: "1.1")
        ) {
            try ResultsMerge([a, b])
        }
    }

    @Test func oneFolderNamedTwiceHoweverSpelledIsRefused() throws {
        let fileManager = FileManager.default
        let root = fileManager.temporaryDirectory.appendingPathComponent("merge-same-\(UUID().uuidString)")
        let folder = root.appendingPathComponent("A")
        try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? fileManager.removeItem(at: root) }
        let link = root.appendingPathComponent("link")
        try fileManager.createSymbolicLink(at: link, withDestinationURL: folder)
        let spellings = [
            URL(fileURLWithPath: folder.path + "/", isDirectory: true),
            URL(fileURLWithPath: root.path + "/./A", isDirectory: true),
            URL(fileURLWithPath: root.path + "/link/../A", isDirectory: true), link,
        ]
        for spelling in spellings {
            // Different devices in each, as if the folder had been rewritten between readings: the folder decides.
            let error = #expect(throws: ResultsMerge.Refusal.self, "\(spelling.path)") {
                try ResultsMerge([
                    Self.shard("a", udids: ["A1"], at: folder), Self.shard("b", udids: ["B1"], at: spelling),
                ])
            }
            #expect(error == .sameFolder(first: folder.path, second: spelling.path))
        }
        #expect(throws: ResultsMerge.Refusal.sameFolder(first: folder.path, second: folder.path)) {
            try ResultsMerge([Self.shard("a", udids: ["A1"], at: folder), Self.shard("a", udids: ["A1"], at: folder)])
        }
    }

    @Test func everyShardsToolVersionIsKeptAndADifferenceNoted() throws {
        let merged = try ResultsMerge([
            Self.shard("a", udids: ["A1"], tool: "1.0.0"), Self.shard("b", udids: ["B1"], tool: "1.1.0"),
        ])
        #expect(merged.manifest.toolVersion == "1.0.0, 1.1.0")
        #expect(
            merged.manifest.options?.other?["shard tool versions"]
                == "/shards/a: launchbench 1.0.0, /shards/b: launchbench 1.1.0")
        let origins = try #require(merged.manifest.deviceOutcomes).compactMap(\.notes.first)
        #expect(origins.map { $0.hasSuffix("with launchbench 1.0.0.") } == [true, false])
        #expect(origins.map { $0.hasSuffix("with launchbench 1.1.0.") } == [false, true])
        #expect(
            merged.notes == [
                "The shards were measured by different launchbench versions (launchbench 1.0.0 in /shards/a, "
                    + "launchbench 1.1.0 in /shards/b); each device's notes in the merged run say which. Measure "
                    + "every shard with one version when the numbers must compare exactly."
            ])
    }

    @Test func oneFolderIsNotAMerge() {
        #expect(throws: ResultsMerge.Refusal.tooFewShards(count: 1)) {
            try ResultsMerge([Self.shard("a", udids: ["A1"])])
        }
    }
}

/// Issue 44: a shard's build is what its launches measured; one whose launches disagree with its run.json is refused.
extension ResultsMergeTests {
    @Test func aShardWhoseLaunchesNameAnotherBuildThanItsRunJSONIsRefused() throws {
        var b = Self.shard("b", udids: ["B1"], build: "34")
        b.samples = b.samples.map { sample in
            var sample = sample
            sample.appVersion = "1.0 (35)"
            return sample
        }
        let error = #expect(throws: ResultsMerge.Refusal.self) {
            try ResultsMerge([Self.shard("a", udids: ["A1"], build: "34"), b])
        }
        #expect(
            error
                == .shardDisagrees(folder: "/shards/b", runJSONBuild: "1.0 (34)", launchBuild: "1.0 (35)", launches: 3))
        let text = try #require(error?.localizedDescription)
        #expect(text.contains("its run.json says 1.0 (34), but 3 of its launches say 1.0 (35)"), "\(text)")
    }

    @Test func aReferenceAppsLaunchesInTheSameFileDoNotCountAsAnotherBuild() throws {
        var a = Self.shard("a", udids: ["A1"])
        a.samples.append(Self.sample("A1", run: "run-a", app: "com.example.empty", version: "9.9 (9)"))
        let merged = try ResultsMerge([a, Self.shard("b", udids: ["B1"])])
        #expect(merged.samples.count == 7)
    }
}
