import Foundation
import LaunchBench
import Testing

@testable import DeviceEmulator

/// `Scripts/bench-gate`: the error rates and the launches saved by `run --until-verdict`, on the emulator's
/// noise model (each launch planned by `LaunchPlanner` with the profile's seeded 5 % noise per phase, printed
/// as dyld prints it and read back by the parser), against the fixed 20-iteration gate on the same pairs.
/// A measurement, not a check: it runs only when `LAUNCHBENCH_BENCH_GATE` names the number of pairs per row.
@Suite struct SequentialGateBenchmark {
    static let pairs = Int(ProcessInfo.processInfo.environment["LAUNCHBENCH_BENCH_GATE"] ?? "") ?? 0

    static func profile(seed: UInt64, scale: Double) -> AppProfile {
        func timings(_ factor: Double) -> LaunchTimings {
            LaunchTimings(
                dylibLoadingMs: 180 * factor, rebaseBindingMs: 60 * factor, objcSetupMs: 40 * factor,
                initializerMs: 120 * factor, mainMs: 450 * factor, didFinishLaunchingMs: 600 * factor,
                firstFrameMs: 700 * factor)
        }
        return AppProfile(
            models: ["default": ModelTimings(cold: timings(scale), warm: timings(scale * 0.4))], noise: 0.05,
            seed: seed)
    }

    /// The gate metric (`total_premain_ms`) of `count` launches of `kind`.
    static func values(_ profile: AppProfile, kind: LaunchKindName, count: Int) -> [Double] {
        EmulatedLaunches.records(EmulatedLaunches.app(profile), kind: kind, count: count).compactMap(\.totalPremainMs)
    }

    struct Row {
        var kind: String
        var shift: String
        var sequentialFlagged = 0
        var sequentialLaunches = 0
        var sequentialUndecided = 0
        var fixedFlagged = 0
    }

    @Test(.enabled(if: pairs > 0, "set LAUNCHBENCH_BENCH_GATE=PAIRS (Scripts/bench-gate)"))
    func sequentialAgainstFixedTwentyIterations() {
        let design = SequentialVerdict(minimumLaunches: 5, maxLaunches: 30)
        let settings = GateSettings()
        var rows: [Row] = []
        for (kind, kindName) in [(LaunchKindName.cold, "cold"), (.warm, "warm")] {
            for (scale, shiftName) in [(1.0, "none (A/A)"), (1.05, "+5 %"), (1.10, "+10 %")] {
                var row = Row(kind: kindName, shift: shiftName)
                for pair in 0..<Self.pairs {
                    let seed = UInt64(pair) * 2 + (kind == .cold ? 1 : 1_000_001)
                    let baseline = Self.values(Self.profile(seed: seed, scale: 1), kind: kind, count: 20)
                    let current = Self.values(Self.profile(seed: seed + 1, scale: scale), kind: kind, count: 30)
                    // Sequential: look after every launch from 5 on, as `run --until-verdict` does.
                    var decision = SequentialVerdict.Decision.continue
                    var used = design.maxLaunches
                    for k in design.minimumLaunches...design.maxLaunches {
                        decision = design.decide(
                            baseline: baseline, current: Array(current.prefix(k)),
                            thresholdPercent: settings.thresholdPercent, alpha: settings.alpha)
                        if decision.isFinal {
                            used = k
                            break
                        }
                    }
                    row.sequentialLaunches += used
                    switch decision {
                    case .settled(.regression, _, _, _, _, _): row.sequentialFlagged += 1
                    case .capReached: row.sequentialUndecided += 1
                    default: break
                    }
                    // Fixed: the gate on 20 launches per side.
                    let fixed = GateComparison.judgeValues(
                        baseline: baseline, current: Array(current.prefix(20)), settings: settings)
                    if fixed == .regression { row.fixedFlagged += 1 }
                }
                rows.append(row)
            }
        }
        let n = Double(Self.pairs)
        func percent(_ count: Int) -> String { String(format: "%5.1f %%", Double(count) / n * 100) }
        print("bench-gate: \(Self.pairs) simulated pairs per row; baseline 20 launches; threshold 5 %, α = 0.05")
        print("bench-gate: kind  shift        fixed-20 flagged  sequential flagged  undecided  mean launches  of 20")
        for row in rows {
            let mean = Double(row.sequentialLaunches) / n
            print(
                "bench-gate: \(row.kind.padding(toLength: 4, withPad: " ", startingAt: 0))  "
                    + "\(row.shift.padding(toLength: 11, withPad: " ", startingAt: 0))  \(percent(row.fixedFlagged))"
                    + "           \(percent(row.sequentialFlagged))             \(percent(row.sequentialUndecided))"
                    + String(format: "     %6.1f       %5.0f %%", mean, mean / 20 * 100))
        }
    }
}
