import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import launchbench

/// `merge` of A/B shards (`run NEW --against BASE` on several hosts): each shard's base/ merges into one, so
/// the merged folder is an A/B run that `compare DIR` judges pair by pair.
@Suite struct MergeABShardsTests {
    /// An A/B shard measured on `udid`: NEW's launches in the folder, BASE's in base/, `ratio` apart.
    private static func shard(udid: String, ratio: Double) throws -> URL {
        func samples(_ build: String, _ factor: Double) -> [Sample] {
            (1...12).map { iteration in
                var sample = GateSamples.make(
                    udid: udid, iteration: iteration,
                    metrics: [.totalPremainMs: (400 + Double(iteration % 4) * 6) * factor])
                sample.build = build
                return sample
            }
        }
        let folder = try GateSamples.resultsFolder(samples("new", ratio))
        var manifest = RunManifest(runID: "run-\(udid)", app: RunManifest.App(bundleID: "com.example.app"))
        manifest.builds = [RunManifest.Build(role: "new", version: "1.0 (2)"), RunManifest.Build(role: "base")]
        manifest.pairedDesign = PairedSequentialVerdict(minimumPairs: 5, maxPairs: 12)
        try manifest.write(to: folder.appendingPathComponent("run.json"))
        let base = try GateSamples.resultsFolder(samples("base", 1))
        try FileManager.default.moveItem(at: base, to: folder.appendingPathComponent("base"))
        return folder
    }

    @Test func theShardsBaseFoldersMergeAndThePairsAreJudged() async throws {
        let first = try Self.shard(udid: "UDID-A", ratio: 1.2)
        let second = try Self.shard(udid: "UDID-B", ratio: 1.2)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("merged-ab-\(UUID().uuidString)")
        defer { for url in [first, second, output] { try? FileManager.default.removeItem(at: url) } }
        let merge = await InProcessCommand.run(["merge", first.path, second.path, "--output", output.path])
        #expect(merge.status == 0, "\(merge.message ?? "")")
        let base = try ResultsFolder.loadSamples(output.appendingPathComponent("base")).samples
        #expect(base.count == 24 && base.allSatisfy { $0.build == "base" })
        #expect(try RunManifest.read(from: output.appendingPathComponent("run.json")).isABRun)
        let report = try GateCheck(settings: GateSettings()).report(
            current: GateInput.load(path: output.path, role: .current))
        #expect(report.paired?.entries.map(\.device.udid) == ["UDID-A", "UDID-B"])
        #expect(report.paired?.regressions.count == 2)
    }
}
