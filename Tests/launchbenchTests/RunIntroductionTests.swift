import Foundation
import LaunchBench
import Testing

@testable import launchbench

/// `run`'s start line states the real plan: with a stopping rule, its cap (not the unused fixed count of 10).
@Suite struct RunIntroductionTests {
    static let app = AppBundle(
        url: URL(fileURLWithPath: "/tmp/Sample.app"), packaging: .appFolder, bundleID: "com.example.sample",
        shortVersion: "1.0", build: "7", executable: "Sample", bundleName: "Sample.app", frameworks: [])
    static let device = DeviceInfo(
        udid: "UDID-A", name: "Phone", productType: "iPhone12,1", osVersion: "14.8", buildVersion: "18H17")

    static func line(_ plan: RunPlan) -> String {
        RunExecution.introduction(plan, devices: [device], folder: URL(fileURLWithPath: "/tmp/out"))
    }

    @Test func aFixedRunSaysItsIterations() {
        #expect(Self.line(RunPlan(app: Self.app, iterations: 12)).contains(": 12 iterations, cold after reinstall"))
    }

    @Test func untilVerdictSaysItsCap() {
        var plan = RunPlan(app: Self.app)
        plan.untilVerdict = VerdictStopping(
            baseline: [], settings: GateSettings(), design: SequentialVerdict(minimumLaunches: 5, maxLaunches: 30))
        let line = Self.line(plan)
        #expect(line.contains(": up to 30 iterations (until the verdict against the baseline is settled), "))
        #expect(!line.contains("10 iterations"))
    }

    @Test func targetPrecisionSaysItsCap() {
        var plan = RunPlan(app: Self.app)
        plan.stopping = AdaptiveStopping(targetPrecisionPercent: 3, maxIterations: 50)
        #expect(Self.line(plan).contains(": up to 50 iterations (until the cold median is known within ±3 %), "))
    }
}
