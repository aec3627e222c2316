import Foundation
import Testing

@testable import LaunchBench

/// The gate's sample sizes say what the run recorded in run.json (`stop` of each device), and work the adaptive
/// rule out again from the launches only for a run.json that has none (an older tool's).
@Suite struct RecordedStopTests {
    /// `RunConclusionTests.run`'s folder (10 cold launches a device, known within a few %) with `stop` recorded
    /// for its first device as `stopJSON` (`nil`: none, as an older tool wrote it).
    private func sampleSizes(stopJSON: String?) async throws -> [String] {
        let result = try await RunConclusionTests.run(
            udids: ["UDID-A"], options: RunManifest.Options(targetPrecisionPercent: 5, maxIterations: 10))
        let url = result.folder.appendingPathComponent("run.json")
        if let stopJSON {
            var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
            var outcomes = try #require(json["deviceOutcomes"] as? [[String: Any]])
            outcomes[0]["stop"] = try JSONSerialization.jsonObject(with: Data(stopJSON.utf8))
            json["deviceOutcomes"] = outcomes
            try JSONSerialization.data(withJSONObject: json).write(to: url)
        }
        let conclusion = RunConclusion.conclude(result, gate: GateCheck(settings: GateSettings()))
        return try #require(conclusion.report).sampleSizes
    }

    @Test func aRecordedDecisionIsReportedAsRecorded() async throws {
        // The launches alone would say "known within"; the run recorded that it reached --max-iterations.
        let sizes = try await sampleSizes(
            stopJSON: #"{"rule": "target-precision", "iterations": 10, "halfWidthPercent": 7.14, "#
                + #""targetPercent": 5, "reachedTarget": false}"#)
        #expect(
            sizes == [
                "Phone UDID-A (UDID-A): 10 iterations (the maximum): cold median within ±7.1 %, target ±5 % not reached"
            ])
    }

    @Test func aDeviceAnotherRuleStoppedIsSaidToHaveStoppedEarly() async throws {
        let sizes = try await sampleSizes(stopJSON: #"{"rule": "device-lost", "iterations": 10}"#)
        #expect(sizes.count == 1)
        #expect(
            sizes.first?.hasSuffix("10 iterations (stopped early: the device was lost, stopped or the run interrupted)")
                == true)
    }

    @Test(arguments: [nil, #"{"rule": "a-rule-of-a-newer-tool", "iterations": 10}"#])
    func withoutAReadableDecisionTheRuleIsWorkedOutFromTheLaunches(stopJSON: String?) async throws {
        let sizes = try await sampleSizes(stopJSON: stopJSON)
        #expect(sizes.count == 1)
        #expect(sizes.first?.contains("10 iterations: cold median known within") == true)
    }

    @Test func anUnreadableDecisionCostsTheDecisionOnly() throws {
        let json =
            #"{"devices": [], "deviceOutcomes": [{"udid": "U", "outcome": "measured", "notes": ["n"], "#
            + #""stop": {"rule": "a-rule-of-a-newer-tool", "iterations": 3}}]}"#
        let manifest = try JSONCoding.decoder().decode(RunManifest.self, from: Data(json.utf8))
        #expect(manifest.deviceOutcomes?.map(\.udid) == ["U"])
        #expect(manifest.deviceOutcomes?.first?.notes == ["n"])
        #expect(manifest.deviceOutcomes?.first?.stop == nil)
    }

    @Test func aDecisionRoundTripsThroughRunJSON() throws {
        var outcome = RunManifest.DeviceOutcome(udid: "U", outcome: .measured)
        outcome.stop = StopDecision(
            precision: .reachedPrecision(iterations: 14, halfWidthPercent: 2.8), target: 3, reason: "r")
        let manifest = RunManifest(devices: [], deviceOutcomes: [outcome])
        let read = try JSONCoding.decoder().decode(RunManifest.self, from: JSONCoding.encoder().encode(manifest))
        #expect(read.deviceOutcomes?.first?.stop == outcome.stop)
        #expect(
            read.deviceOutcomes?.first?.stop?.precisionDecision
                == .reachedPrecision(iterations: 14, halfWidthPercent: 2.8))
    }
}
