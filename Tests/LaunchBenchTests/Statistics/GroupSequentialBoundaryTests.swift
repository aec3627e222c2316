import Foundation
import Testing

@testable import LaunchBench

@Suite struct GroupSequentialBoundaryTests {
    /// One look is the fixed-sample test.
    @Test func oneLookIsTheFixedSampleCriticalValue() {
        let boundary = GroupSequentialBoundary(informationFractions: [1], alpha: 0.05)
        #expect(abs(boundary.criticalValues[0] - 1.959964) < 1e-4)
    }

    /// The Lan–DeMets O'Brien–Fleming bounds for five equally spaced looks at one-sided α = 0.025 (each side
    /// of our two-sided 0.05), as gsDesign's `sfLDOF` and R's ldbounds print them: 4.8769, 3.3569, 2.6803,
    /// 2.2898, 2.0310.
    @Test func fiveEquallySpacedLooksMatchThePublishedBounds() {
        let boundary = GroupSequentialBoundary(informationFractions: [0.2, 0.4, 0.6, 0.8, 1], alpha: 0.05)
        let published = [4.8769, 3.3569, 2.6803, 2.2898, 2.0310]
        for (computed, expected) in zip(boundary.criticalValues, published) {
            #expect(abs(computed - expected) < 2e-3, "\(computed) vs \(expected)")
        }
    }

    @Test func spendingIsZeroAtStartAndAlphaAtTheEnd() {
        #expect(GroupSequentialBoundary.spent(0, alpha: 0.05) == 0)
        #expect(abs(GroupSequentialBoundary.spent(1, alpha: 0.05) - 0.05) < 1e-9)
        #expect(GroupSequentialBoundary.spent(0.5, alpha: 0.05) < 0.01)
    }

    /// Simulated Brownian paths: the design rejects about α of them under no change, however many looks
    /// (a naive 1.96 at every look would reject far more).
    @Test func theDesignKeepsItsErrorRateOverManyLooks() {
        let fractions = (1...26).map { Double($0) / 26 }
        let boundary = GroupSequentialBoundary(informationFractions: fractions, alpha: 0.05)
        var random = SystemRandomNumberGenerator()
        var rejected = 0
        var naive = 0
        let paths = 20000
        for _ in 0..<paths {
            var s = 0.0
            var previous = 0.0
            var crossed = false
            var naiveCrossed = false
            for (index, t) in fractions.enumerated() {
                s += gaussian(&random) * (t - previous).squareRoot()
                previous = t
                let z = s / t.squareRoot()
                if abs(z) >= boundary.criticalValues[index] { crossed = true }
                if abs(z) >= 1.96 { naiveCrossed = true }
            }
            if crossed { rejected += 1 }
            if naiveCrossed { naive += 1 }
        }
        // Binomial(20000, 0.05): sd 31; ±6 sd.
        #expect((814...1186).contains(rejected), "\(rejected) of \(paths)")
        #expect(naive > 2 * rejected, "naive \(naive)")
    }

    private func gaussian(_ random: inout SystemRandomNumberGenerator) -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &random)
        let u2 = Double.random(in: 0..<1, using: &random)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
