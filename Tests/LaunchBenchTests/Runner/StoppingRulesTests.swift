import Foundation
import Testing

@testable import LaunchBench

/// The stopping rules over scripted events: what counts toward a limit, what starts the count again, and what
/// each stop records.
@Suite struct StoppingRulesTests {
    private static func sample(_ status: SampleStatus, iteration: Int = 1, index: Int = 0) -> Sample {
        var sample = Sample(
            runID: "r", deviceUDID: "U", deviceName: "Phone", productType: "iPhone12,1", osVersion: "16.7",
            appBundleID: "com.example.app", appVersion: "1.0", iteration: iteration, kind: index == 0 ? .cold : .warm,
            launchIndex: index, status: status, startedAt: Date(timeIntervalSince1970: 0))
        sample.message = status.rawValue
        return sample
    }

    /// The events in order, each recorded launch kept; the first stop, with the number of events it took.
    private static func firstStop(_ plan: RunPlan, _ events: [PipelineEvent]) -> (DeviceStop, after: Int)? {
        var rules = StoppingRules(plan)
        var tally = LaunchTally(keepsValues: StoppingRules.readValues(plan))
        for (offset, event) in events.enumerated() {
            switch event {
            case .prepared(let failure?): tally.keep(failure)
            case .launched(let sample): tally.keep(sample)
            default: break
            }
            if let stop = rules.decide(after: event, tally: tally) { return (stop, offset + 1) }
        }
        return nil
    }

    private static let plan = RunPlan(app: RunnerFixtures.app, iterations: 10)

    @Test func anotherLaunchStartsTheRefusalCountAgainAndAFailedInstallDoesNot() throws {
        let refused = PipelineEvent.launched(Self.sample(.launchRefused))
        let measured = PipelineEvent.launched(Self.sample(.ok))
        #expect(Self.firstStop(Self.plan, [refused, refused, measured, refused, refused]) == nil)
        let failedInstall = PipelineEvent.prepared(failure: Self.sample(.installFailed))
        let (stop, after) = try #require(Self.firstStop(Self.plan, [refused, refused, failedInstall, refused]))
        #expect(after == 4 && stop.outcome == .stopped && stop.decision.rule == .refusedLaunches)
        #expect(stop.note == "Stopped after 3 refused launches in a row: launch-refused")
    }

    @Test func aPreparedLaunchStartsTheInstallCountAgain() throws {
        let failed = PipelineEvent.prepared(failure: Self.sample(.installFailed))
        let ready = PipelineEvent.prepared(failure: nil)
        #expect(Self.firstStop(Self.plan, [failed, failed, ready, failed, failed]) == nil)
        let (stop, after) = try #require(Self.firstStop(Self.plan, [failed, failed, failed]))
        #expect(after == 3 && stop.decision == StopDecision(rule: .failedInstalls, iterations: 3, reason: stop.note))
    }

    @Test func aLostDeviceStopsAtOnceWhateverElseCounts() throws {
        let refused = PipelineEvent.launched(Self.sample(.launchRefused))
        let lost = PipelineEvent.launched(Self.sample(.deviceLost, iteration: 2, index: 1))
        let (stop, after) = try #require(Self.firstStop(Self.plan, [refused, refused, lost]))
        #expect(after == 3 && stop.outcome == .lost && stop.note == "device-lost")
        #expect(stop.decision.rule == .deviceLost)
    }

    @Test func thePlansRulesLookOnlyAfterAnIteration() throws {
        var plan = Self.plan
        plan.stopping = AdaptiveStopping(targetPrecisionPercent: 50, minimumIterations: 1, maxIterations: 2)
        let launch = PipelineEvent.launched(Self.sample(.ok))
        #expect(Self.firstStop(plan, [launch, launch, launch]) == nil)
        let (stop, after) = try #require(
            Self.firstStop(plan, [launch, .iterationEnded(1), launch, .iterationEnded(2)]))
        #expect(after == 4 && stop.outcome == .measured)
        #expect(stop.decision.precisionDecision == .reachedLimit(iterations: 2, halfWidthPercent: nil))
    }
}
