import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import DeviceEmulator

/// The CI gate on launches of the emulated app itself: each launch is planned by the emulator's
/// `LaunchPlanner` (the profile's phases with its seeded noise), printed as dyld prints it, and read
/// back by the core's parser — the same figures `launchbench run` records, without the socket stack.
@Suite struct GateEmulatedPowerTests {
    static func profile(seed: UInt64, scale: Double = 1, noise: Double = 0.05) -> AppProfile {
        AppProfile(
            models: [
                "default": ModelTimings(
                    cold: LaunchTimings(
                        dylibLoadingMs: 180 * scale, rebaseBindingMs: 60 * scale, objcSetupMs: 40 * scale,
                        initializerMs: 120 * scale, mainMs: 450 * scale, didFinishLaunchingMs: 600 * scale,
                        firstFrameMs: 700 * scale))
            ], noise: noise, seed: seed)
    }

    /// `count` cold launches of the app with `profile` on an emulated iPhone 11 (iOS 14.8 with an
    /// override variable, so dyld prints its statistics), as samples.
    static func samples(_ profile: AppProfile, count: Int) -> [Sample] {
        let app = LaunchPlanTests.app(profile)
        let planner = LaunchPlanTests.planner(OSVersion(14, 8), model: "iPhone12,1")
        let environment = ["DYLD_PRINT_STATISTICS": "1", "DYLD_INSERT_LIBRARIES": "/usr/lib/libLaunchProbe.dylib"]
        return (1...count).map { n in
            let plan = planner.plan(app: app, environment: environment, kind: .cold, launchNumber: n)
            let record = LaunchLogParser.parse(plan.allOutput).first ?? LaunchRecord()
            return Sample(
                runID: "power", deviceUDID: "00008030-001A2D4E0C388001", deviceName: "Emulated iPhone 11",
                productType: "iPhone12,1", osVersion: "14.8", appBundleID: app.bundleID, appVersion: "1.2",
                iteration: n,
                kind: .cold, status: record.totalPremainMs == nil ? .noMetrics : .ok, metrics: record.metrics,
                startedAt: Date(timeIntervalSince1970: Double(n)))
        }
    }

    /// A/A: 400 pairs of runs of the same profile (same 5 % noise, different seeds), 20 launches each.
    /// At most 5 % may be called regressions. And the test under it must be calibrated: under the null a
    /// two-sided test at 0.05 rejects Binomial(400, 0.05) times (mean 20, sd 4.4): 6…36 with
    /// probability > 99.99 %.
    @Test func aaRunsOfTheEmulatedAppRarelyRegress() async throws {
        let (regressions, significant, malformed) = await offThePool {
            var regressions = 0
            var significant = 0
            var malformed = 0
            for pair in 0..<400 {
                let baseline = Self.samples(Self.profile(seed: UInt64(2 * pair + 1)), count: 20)
                let current = Self.samples(Self.profile(seed: UInt64(2 * pair + 2)), count: 20)
                guard let entry = GateComparison(baseline: baseline, current: current).entries.first,
                    entry.metric == .totalPremainMs, entry.current.values.count == 20
                else {
                    malformed += 1
                    continue
                }
                if entry.verdict == .regression { regressions += 1 }
                if (entry.test?.pValue ?? 1) < 0.05 { significant += 1 }
            }
            return (regressions, significant, malformed)
        }
        print("gate A/A on the emulated app: \(regressions)/400 regression verdicts, \(significant)/400 with p < 0.05")
        #expect(malformed == 0)
        #expect(regressions <= 20)
        #expect((6...36).contains(significant), "\(significant)/400")
    }

    /// Power: the profile 10 % slower, 20 iterations, 5 % noise, flagged in at least 90 % of 400 pairs.
    @Test func aTenPercentSlowerEmulatedAppIsDetected() async throws {
        let detected = await offThePool {
            (0..<400).filter { pair in
                let baseline = Self.samples(Self.profile(seed: UInt64(10_000 + 2 * pair)), count: 20)
                let current = Self.samples(Self.profile(seed: UInt64(10_001 + 2 * pair), scale: 1.1), count: 20)
                return GateComparison(baseline: baseline, current: current).entries.first?.verdict == .regression
            }.count
        }
        print("gate power on the emulated app (10 % slower, n = 20, 5 % noise): \(detected)/400 regression verdicts")
        #expect(detected >= 360)
    }
}
