import Foundation
import Testing

@testable import LaunchBench

/// The interleaved run's sequential verdict on seeded pairs: what it settles, what it leaves at its cap,
/// and that looking after every pair keeps A/A false regressions near α.
@Suite struct PairedSequentialVerdictTests {
    /// A standard normal draw (Box–Muller) from `random`.
    private static func gaussian(_ random: inout SeededRandom) -> Double {
        let u1 = max(Double.random(in: 0..<1, using: &random), 1e-12)
        let u2 = Double.random(in: 0..<1, using: &random)
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// `count` pairs of 400 ms launches with `noise` (sd of the log) each, the new build `ratio` times the base.
    private static func pairs(_ count: Int, noise: Double, ratio: Double, seed: UInt64) -> (
        base: [Double], new: [Double]
    ) {
        var random = SeededRandom(seed: seed)
        var base: [Double] = []
        var new: [Double] = []
        for _ in 0..<count {
            base.append(400 * exp(noise * gaussian(&random)))
            new.append(400 * ratio * exp(noise * gaussian(&random)))
        }
        return (base, new)
    }

    /// The first final decision looking after every pair, as `--until-verdict` does.
    private static func run(
        _ design: PairedSequentialVerdict, _ pairs: (base: [Double], new: [Double]), thresholdPercent: Double = 5
    ) -> PairedSequentialVerdict.Decision {
        for k in design.minimumPairs...design.maxPairs {
            let decision = design.decide(
                base: Array(pairs.base.prefix(k)), new: Array(pairs.new.prefix(k)),
                thresholdPercent: thresholdPercent, alpha: 0.05)
            if decision.isFinal { return decision }
        }
        return .continue
    }

    @Test func aClearSlowdownSettlesAsARegressionEarly() throws {
        let design = PairedSequentialVerdict()
        let decision = Self.run(design, Self.pairs(40, noise: 0.03, ratio: 1.2, seed: 1))
        guard case .settled(.regression, let shift, let visible) = decision else {
            Issue.record("expected a regression, got \(decision)")
            return
        }
        #expect(shift.pairs < 15)
        #expect(abs(shift.shiftPercent - 20) < 5)
        #expect(try #require(visible) < 20)
        #expect(
            PairedSequentialVerdict.describe(decision, thresholdPercent: 5).hasPrefix(
                "Slower after \(shift.pairs) pairs"))
    }

    @Test func quietPairsOfOneBuildSettleAsUnchanged() {
        let decision = Self.run(PairedSequentialVerdict(), Self.pairs(40, noise: 0.02, ratio: 1, seed: 2))
        guard case .settled(.unchanged, _, _) = decision else {
            Issue.record("expected unchanged, got \(decision)")
            return
        }
        #expect(decision.verdict == .unchanged)
    }

    @Test func noisyPairsOfOneBuildShowNoChangeAtTheCapAndSayWhatTheyCouldSee() throws {
        // 10 % per launch: ±5 % cannot be proved in 40 pairs (about 90 are needed), nor is anything flagged.
        let decision = Self.run(PairedSequentialVerdict(maxPairs: 40), Self.pairs(40, noise: 0.10, ratio: 1, seed: 4))
        guard case .noChangeShown(let shift, let visible) = decision else {
            Issue.record("expected no change shown, got \(decision)")
            return
        }
        #expect(try #require(shift).pairs == 40)
        #expect(try #require(visible) > 5)
        #expect(decision.verdict == .unchanged)
        let text = PairedSequentialVerdict.describe(decision, thresholdPercent: 5)
        #expect(text.hasPrefix("No change shown after 40 pairs"))
        #expect(text.contains("the smallest change these pairs could show is ±"))
    }

    @Test func tooFewPairsWaitAndNothingIsDecidedBeforeTheFirstLook() {
        let design = PairedSequentialVerdict(minimumPairs: 5, maxPairs: 10)
        let pairs = Self.pairs(4, noise: 0.01, ratio: 2, seed: 5)
        #expect(design.decide(base: pairs.base, new: pairs.new, thresholdPercent: 5, alpha: 0.05) == .continue)
    }

    @Test func lookingAfterEveryPairKeepsFalseRegressionsNearAlpha() {
        // 400 seeded A/A runs at 5 % noise, up to 40 pairs, threshold 0 so that significance alone decides:
        // at most α/2 = 2.5 % slower in theory (a fixed 95 % interval at each of the 36 looks gives far more).
        let design = PairedSequentialVerdict(maxPairs: 40)
        var flagged = 0
        for seed in 0..<400 {
            let pairs = Self.pairs(40, noise: 0.05, ratio: 1, seed: UInt64(100 + seed))
            if case .settled(.regression, _, _) = Self.run(design, pairs, thresholdPercent: 0) {
                flagged += 1
            }
        }
        #expect(flagged <= 20, "\(flagged) of 400 A/A runs flagged")
    }
}
