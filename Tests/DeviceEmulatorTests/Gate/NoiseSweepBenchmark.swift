import Foundation
import Testing

@testable import DeviceEmulator
@testable import LaunchBench

/// `Scripts/bench-gate`'s sweep: the three ways of judging a build at a phone's noise (per-launch noise, a
/// run offset per device start, slow drift), on the same simulated phones:
/// - **fixed-20 stored baseline**: a 20-launch baseline from one device start against 20 launches of a
///   later start (`run --baseline`);
/// - **sequential stored baseline**: the same baseline, the current start judged after every launch from
///   5 to 40 (`run --baseline --until-verdict --max-iterations 40`), and how often its baseline is too noisy
///   to show the threshold at all (blind: the real run then stops after one iteration, exit 3);
/// - **interleaved pairs**: both builds on one device start, ABBA per iteration, judged after every pair
///   from 5 to 40 (``PairedSequentialVerdict``).
///
/// Simulated at the statistics level, so hundreds of pairs per row take seconds: each launch's gate metric
/// is a 400 ms pre-main times the factor of ``PhoneVariation`` (`deviceLogs` and `launchLog`, the code
/// `LaunchPlanner` applies to every emulated launch, with the planner's own seeded sequences), each build's
/// iteration being a cold and a warm launch (so a build's cold launches are two device launches apart).
/// Dyld's printing, the parser and the per-phase noise are left out (the per-launch noise stands for it).
/// A measurement, not a check: it runs only when `LAUNCHBENCH_BENCH_SWEEP` names the pairs per row.
@Suite struct NoiseSweepBenchmark {
    static let pairs = Int(ProcessInfo.processInfo.environment["LAUNCHBENCH_BENCH_SWEEP"] ?? "") ?? 0
    static let nominalMs = 400.0
    static let cap = 40
    static let udid = "00008030-001A2D4E0C388001"
    static let bundleID = "com.example.launchbench.sample"

    /// The gate metric of launches `first…` of one device start, build by build (`ratios`: 1 = base).
    /// - Parameter launchNumbers: each launch's number among the app's launches (the planner's draws).
    static func values(
        _ variation: PhoneVariation, seed: UInt64, start: Int, ratios: [Double], launchNumbers: [Int]
    ) -> [Double] {
        // Cold, then warm: the cold launch of iteration i is the device's launch 2i + 1 of this start.
        let device = variation.deviceLogs(seed: seed, udid: udid, start: start, count: 2 * ratios.count)
        return ratios.indices.map { i in
            let draws = LaunchPlanner.Draws(seed: seed, parts: [udid, bundleID], launchNumber: launchNumbers[i])
            let own = variation.launchLog(noise: draws.random("launch-noise"), background: draws.random("background"))
            return nominalMs * ratios[i] * exp(device[2 * i] + own)
        }
    }

    struct Tally {
        var fixedRegressions = 0
        var fixedUnchanged = 0
        var storedRegressions = 0
        var storedUnchanged = 0
        var storedUndecided = 0
        var storedLaunches = 0
        /// Baselines whose floor is at or past the threshold: `run --until-verdict` stops at once (exit 3).
        var storedBlind = 0
        var pairedRegressions = 0
        var pairedUnchanged = 0
        var pairedNoChange = 0
        var pairedLaunches = 0
    }

    /// One simulated comparison of each design for one pair seed.
    static func judge(_ variation: PhoneVariation, ratio: Double, seed: UInt64, tally: inout Tally) {
        let settings = GateSettings()
        // The baseline: start 1, launches 1…20; the current run: start 2, launches 21…60.
        let baseline = values(
            variation, seed: seed, start: 1, ratios: Array(repeating: 1, count: 20), launchNumbers: Array(1...20))
        let current = values(
            variation, seed: seed, start: 2, ratios: Array(repeating: ratio, count: cap),
            launchNumbers: Array(21...(20 + cap)))
        switch GateComparison.judgeValues(baseline: baseline, current: Array(current.prefix(20)), settings: settings) {
        case .regression: tally.fixedRegressions += 1
        case .unchanged: tally.fixedUnchanged += 1
        default: break
        }
        if let floor = SmallestVisibleChange.baselineFloor(baseline: baseline, level: 1 - settings.alpha),
            floor >= settings.thresholdPercent
        {
            tally.storedBlind += 1
        }
        let stored = SequentialVerdict(minimumLaunches: 5, maxLaunches: cap)
        for k in stored.minimumLaunches...stored.maxLaunches {
            let decision = stored.decide(
                baseline: baseline, current: Array(current.prefix(k)), thresholdPercent: settings.thresholdPercent,
                alpha: settings.alpha)
            guard decision.isFinal else { continue }
            tally.storedLaunches += k
            switch decision {
            case .settled(.regression, _, _, _, _, _): tally.storedRegressions += 1
            case .settled(.unchanged, _, _, _, _, _): tally.storedUnchanged += 1
            case .capReached: tally.storedUndecided += 1
            default: break
            }
            break
        }
        // Interleaved: start 3, iteration i runs A then B when i is even, B then A when odd (ABBA).
        var ratios: [Double] = []
        for i in 0..<cap { ratios += i % 2 == 0 ? [1, ratio] : [ratio, 1] }
        let both = values(
            variation, seed: seed, start: 3, ratios: ratios, launchNumbers: Array(61...(60 + 2 * cap)))
        var base: [Double] = []
        var new: [Double] = []
        for i in 0..<cap {
            let (a, b) = i % 2 == 0 ? (both[2 * i], both[2 * i + 1]) : (both[2 * i + 1], both[2 * i])
            base.append(a)
            new.append(b)
        }
        let paired = PairedSequentialVerdict(minimumPairs: 5, maxPairs: cap)
        for k in paired.minimumPairs...paired.maxPairs {
            let decision = paired.decide(
                base: Array(base.prefix(k)), new: Array(new.prefix(k)), thresholdPercent: settings.thresholdPercent,
                alpha: settings.alpha)
            guard decision.isFinal else { continue }
            tally.pairedLaunches += k
            switch decision {
            case .settled(.regression, _, _): tally.pairedRegressions += 1
            case .settled(.unchanged, _, _): tally.pairedUnchanged += 1
            case .noChangeShown: tally.pairedNoChange += 1
            default: break
            }
            break
        }
    }

    @Test(.enabled(if: pairs > 0, "set LAUNCHBENCH_BENCH_SWEEP=PAIRS (Scripts/bench-gate)"))
    func storedBaselinesAgainstInterleavedPairs() {
        let n = Double(Self.pairs)
        func percent(_ count: Int) -> String { String(format: "%.0f %%", Double(count) / n * 100) }
        func mean(_ total: Int) -> String { String(format: "%.1f", Double(total) / n) }
        print("bench-sweep: \(Self.pairs) simulated comparisons per row; threshold 5 %, α = 0.05; cap \(Self.cap)")
        print(
            "bench-sweep: | noise | offset | drift | change | fixed-20: slower / unchanged | sequential stored: "
                + "slower / unchanged / undecided / launches (baseline blind) | interleaved: slower / unchanged / no change shown / "
                + "launches per build |")
        print("bench-sweep: |---|---|---|---|---|---|---|")
        for noise in [0.03, 0.05, 0.10, 0.20] {
            for offset in [0.0, 0.10, 0.20] {
                for drift in [0.0, 0.10] {
                    let variation = PhoneVariation(launch: noise, runOffset: offset, drift: drift, driftLaunches: 20)
                    for (ratio, change) in [(1.0, "A/A"), (1.05, "+5 %"), (1.10, "+10 %")] {
                        var tally = Tally()
                        for pair in 0..<Self.pairs {
                            Self.judge(variation, ratio: ratio, seed: UInt64(pair) &* 7919 &+ 17, tally: &tally)
                        }
                        let cells = [
                            "\(Int(noise * 100)) %", "\(Int(offset * 100)) %", "\(Int(drift * 100)) %", change,
                            "\(percent(tally.fixedRegressions)) / \(percent(tally.fixedUnchanged))",
                            "\(percent(tally.storedRegressions)) / \(percent(tally.storedUnchanged)) / "
                                + "\(percent(tally.storedUndecided)) / \(mean(tally.storedLaunches)) "
                                + "(\(percent(tally.storedBlind)))",
                            "\(percent(tally.pairedRegressions)) / \(percent(tally.pairedUnchanged)) / "
                                + "\(percent(tally.pairedNoChange)) / \(mean(tally.pairedLaunches))",
                        ]
                        print("bench-sweep: | " + cells.joined(separator: " | ") + " |")
                    }
                }
            }
        }
    }
}
