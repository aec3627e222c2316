import Foundation
import Testing

@testable import LaunchBench

@Suite struct SequentialVerdictTests {
    let design = SequentialVerdict(minimumLaunches: 5, maxLaunches: 30)

    static func values(_ count: Int, around median: Double, spread: Double, seed: UInt64) -> [Double] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return median * (1 + spread * (Double(state >> 11) / Double(1 << 53) - 0.5))
        }
    }

    @Test func nothingIsDecidedBeforeTheFirstLook() {
        let baseline = Self.values(20, around: 300, spread: 0.05, seed: 1)
        let current = Self.values(4, around: 600, spread: 0.05, seed: 2)
        #expect(design.decide(baseline: baseline, current: current, thresholdPercent: 5, alpha: 0.05) == .continue)
    }

    @Test func aDoubledLaunchTimeIsARegressionAtTheFirstLook() {
        let baseline = Self.values(20, around: 300, spread: 0.05, seed: 1)
        let current = Self.values(5, around: 600, spread: 0.05, seed: 2)
        guard
            case .settled(.regression, let n, _, let low, _, _) =
                design.decide(baseline: baseline, current: current, thresholdPercent: 5, alpha: 0.05)
        else {
            Issue.record("not a regression")
            return
        }
        #expect(n == 5 && low > 0)
    }

    @Test func aHalvedLaunchTimeIsAnImprovement() {
        let baseline = Self.values(20, around: 300, spread: 0.05, seed: 1)
        let current = Self.values(5, around: 150, spread: 0.05, seed: 2)
        guard
            case .settled(.improvement, _, _, _, _, _) =
                design.decide(baseline: baseline, current: current, thresholdPercent: 5, alpha: 0.05)
        else {
            Issue.record("not an improvement")
            return
        }
    }

    /// The same values on both sides: the interval shrinks around 0 until it lies within ±5 %.
    @Test func identicalRunsSettleAsUnchangedBeforeTheCap() {
        let baseline = Self.values(20, around: 300, spread: 0.06, seed: 3)
        var settledAt: Int?
        for k in 5...30 {
            let decision = design.decide(
                baseline: baseline, current: Array((baseline + baseline).prefix(k)), thresholdPercent: 5, alpha: 0.05)
            #expect(!(decision.isRegressionOrImprovement), "k = \(k): \(decision)")
            if case .settled(.unchanged, let n, _, let low, let high, _) = decision {
                #expect(low > -5 && high < 5)
                settledAt = n
                break
            }
        }
        #expect(settledAt != nil)
    }

    /// Noisy launches shifted by +3 %: the interval keeps reaching past +5 % and never lies above 0, so
    /// neither "unchanged" nor "regression" can be said: at the cap it is insufficient data.
    @Test func aShiftNoisyDataCannotPlaceEndsAtTheCapAsInsufficientData() {
        let baseline = Self.values(20, around: 300, spread: 0.3, seed: 5)
        let current = (baseline + baseline).prefix(30).map { $0 * 1.03 }
        let decision = design.decide(baseline: baseline, current: current, thresholdPercent: 5, alpha: 0.05)
        guard case .capReached(let n, _, _) = decision else {
            Issue.record("\(decision): \(SequentialVerdict.describe(decision, thresholdPercent: 5))")
            return
        }
        #expect(n == 30)
        #expect(SequentialVerdict.describe(decision, thresholdPercent: 5).contains("insufficient data"))
    }

    /// Early looks are stricter than late ones: the repeated interval's level falls towards 1 − α.
    @Test func earlyLooksUseWiderIntervals() {
        let boundary = SequentialVerdict.boundary(baselineCount: 20, design: design, alpha: 0.05)
        let levels = (0..<boundary.criticalValues.count).map(boundary.level(atLook:))
        #expect(zip(levels, levels.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(levels.last! > 0.95 && levels.first! > 0.999)
    }

    @Test func informationFractionsRiseToOne() {
        let fractions = design.informationFractions(baselineCount: 20)
        #expect(fractions.count == 26)
        #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $0 < $1 })
        #expect(fractions.last == 1)
    }
}

extension SequentialVerdict.Decision {
    fileprivate var isRegressionOrImprovement: Bool {
        if case .settled(let verdict, _, _, _, _, _) = self { return verdict == .regression || verdict == .improvement }
        return false
    }
}
