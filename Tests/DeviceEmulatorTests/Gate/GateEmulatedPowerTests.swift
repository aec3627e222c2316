import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import DeviceEmulator

/// The CI gate's error rates on launches of the emulated app itself (`EmulatedLaunches`).
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

    static func samples(_ profile: AppProfile, count: Int) -> [Sample] {
        EmulatedLaunches.samples(EmulatedLaunches.app(profile), count: count, runID: "power")
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
