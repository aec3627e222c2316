import Foundation
import Testing

@testable import LaunchBench

@Suite struct ResultsMergeTests {
    static func sample(_ udid: String, run: String, app: String = "com.example.app", iteration: Int = 1) -> Sample {
        Sample(
            runID: run, deviceUDID: udid, deviceName: "Phone \(udid)", productType: "iPhone12,1", osVersion: "14.8",
            appBundleID: app, appVersion: "1.0", iteration: iteration, kind: .cold, status: .ok,
            metrics: [.totalPremainMs: 300], startedAt: Date(timeIntervalSince1970: 1000))
    }

    static func shard(
        _ name: String, udids: [String], app: String = "com.example.app", ended: Bool = true, notes: [String] = []
    ) -> (folder: ResultsFolder, samples: [Sample]) {
        let manifest = RunManifest(
            runID: "run-\(name)", startedAt: Date(timeIntervalSince1970: 1000),
            endedAt: ended ? Date(timeIntervalSince1970: 2000) : nil, host: RunManifest.Host(name: "host-\(name)"),
            app: RunManifest.App(bundleID: app, name: "App", version: "1.0", build: "1", frameworks: []),
            devices: udids.map {
                DeviceInfo(
                    udid: $0, name: "Phone \($0)", productType: "iPhone12,1", osVersion: "14.8", buildVersion: "18H17")
            },
            deviceOutcomes: udids.map { RunManifest.DeviceOutcome(udid: $0, outcome: .measured) })
        let samples = udids.flatMap { udid in
            (1...3).map { sample(udid, run: "run-\(name)", app: app, iteration: $0) }
        }
        let folder = ResultsFolder(
            url: URL(fileURLWithPath: "/shards/\(name)"), manifest: manifest, samples: samples, notes: notes)
        return (folder, samples)
    }

    @Test func everyLaunchKeepsItsShardAndEveryDeviceSaysWhereItWasMeasured() throws {
        let merged = try ResultsMerge([Self.shard("a", udids: ["A1", "A2"]), Self.shard("b", udids: ["B1"])])
        #expect(merged.samples.count == 9)
        #expect(Set(merged.samples.map(\.runID)) == ["run-a", "run-b"])
        #expect(merged.manifest.devices.map(\.udid) == ["A1", "A2", "B1"])
        let notes = try #require(merged.manifest.deviceOutcomes).map { $0.notes.first ?? "" }
        #expect(notes[2] == "Measured in shard /shards/b on host host-b (run run-b).")
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

    @Test func oneFolderIsNotAMerge() {
        #expect(throws: ResultsMerge.Refusal.tooFewShards(count: 1)) {
            try ResultsMerge([Self.shard("a", udids: ["A1"])])
        }
    }
}
