import Testing

@testable import LaunchBench

/// Reference values from `scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method=…)`,
/// scipy 1.17.1 (computed with python3 on the development machine, embedded as literals).
@Suite struct MannWhitneyUTests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var x: [Double]
        var y: [Double]
        var u: Double
        var exactP: Double?
        var normalP: Double
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "small, no overlap but one", x: [412.1, 398.4, 420.7, 405.3, 415.9],
            y: [430.2, 441.8, 425.6, 438.1, 419.4, 445.0], u: 1, exactP: 0.008658008658008658,
            normalP: 0.01371083007813322),
        Case(
            name: "overlapping", x: [10.5, 12.25, 9.75, 11.0, 13.5, 8.25, 10.0],
            y: [11.75, 10.25, 12.5, 9.5, 14.0, 11.25],
            u: 15, exactP: 0.4452214452214452, normalP: 0.43203489200500755),
        Case(name: "3 vs 3 apart", x: [1, 2, 3], y: [4, 5, 6], u: 0, exactP: 0.1, normalP: 0.08085559837005224),
        Case(
            name: "20 vs 20",
            x: [
                500.03, 507.47, 493.15, 477.74, 488.63, 475.21, 501.5, 533.51, 487.69, 484.49, 512.25, 508.92, 502.64,
                476.74, 499.27, 517.38, 466.39, 488.56, 452.47, 467.76,
            ],
            y: [
                483.96, 524.12, 498.31, 536.78, 533.92, 525.33, 467.08, 516.53, 528.79, 532.83, 491.75, 518.06, 505.54,
                509.78, 556.52, 509.81, 529.19, 552.11, 515.41, 527.21,
            ],
            u: 73, exactP: 0.00037220591943230613, normalP: 0.0006219975867469958),
    ]

    @Test(arguments: cases) func exactMatchesScipy(_ c: Case) throws {
        let result = try #require(MannWhitneyU.test(c.x, c.y))
        #expect(result.method == .exact)
        #expect(result.u == c.u)
        #expect(abs(result.pValue - c.exactP!) < 1e-12)
    }

    @Test(arguments: cases) func normalApproximationMatchesScipy(_ c: Case) throws {
        let result = try #require(MannWhitneyU.test(c.x, c.y, method: .normal))
        #expect(result.method == .normal)
        #expect(result.u == c.u)
        #expect(abs(result.pValue - c.normalP) < 1e-12)
    }

    @Test func tiesUseTheNormalApproximationWithTieCorrection() throws {
        // scipy asymptotic: U = 18.5, p = 0.09703949160207612.
        let result = try #require(MannWhitneyU.test([5, 6, 6, 7, 8, 8, 8, 9], [6, 7, 7, 8, 9, 9, 10, 10, 11]))
        #expect(result.method == .normal)
        #expect(result.u == 18.5)
        #expect(abs(result.pValue - 0.09703949160207612) < 1e-12)
    }

    @Test func largeSamplesUseTheNormalApproximation() throws {
        let x: [Double] = [
            302.2, 301.3, 275.5, 301.5, 327.2, 269.1, 317.2, 302.4, 287.2, 340.0, 315.2, 276.0, 301.5, 311.5, 296.2,
            313.7, 298.7, 313.3, 328.8, 286.5, 304.1, 290.7, 302.5, 276.3, 288.4, 296.1, 318.0, 322.9, 273.5, 284.1,
            312.9, 260.2, 290.7, 298.1, 325.1, 313.8, 293.5, 292.6, 295.0, 330.5,
        ]
        let y: [Double] = [
            301.4, 303.9, 317.1, 307.6, 306.1, 287.7, 309.8, 301.1, 333.3, 323.1, 309.5, 323.4, 303.2, 331.0, 309.9,
            321.7, 284.2, 316.9, 276.2, 269.3, 303.9, 292.0, 313.3, 354.9, 293.4, 297.5, 314.1, 319.9, 306.5, 305.9,
            324.0, 320.4, 289.3, 308.4, 310.7,
        ]
        // scipy asymptotic: U = 528.5, p = 0.06936239869841278.
        let result = try #require(MannWhitneyU.test(x, y))
        #expect(result.method == .normal)
        #expect(result.u == 528.5)
        #expect(abs(result.pValue - 0.06936239869841278) < 1e-12)
    }

    @Test func identicalValuesGiveNoEvidence() throws {
        let result = try #require(MannWhitneyU.test([5, 5, 5, 5, 5], [5, 5, 5, 5, 5, 5]))
        #expect(result.pValue == 1)
        #expect(MannWhitneyU.test([], [1, 2]) == nil)
    }

    @Test func exactDistributionSumsToOneAndIsSymmetric() {
        let distribution = UDistribution(n1: 7, n2: 9)
        #expect(abs(distribution.probabilities.reduce(0, +) - 1) < 1e-12)
        for u in 0...63 {
            #expect(abs(distribution.probabilities[u] - distribution.probabilities[63 - u]) < 1e-15)
        }
        // 1 / C(16, 7) orderings put all x below all y.
        #expect(abs(distribution.probabilities[0] - 1.0 / 11440) < 1e-18)
    }
}

@Suite struct HodgesLehmannTests {
    // Reference: brute force over all pairwise differences and the exact U distribution enumerated
    // with itertools.combinations in python3 (the same rule as R's wilcox.test(conf.int = TRUE)).
    @Test func shiftAndMosesIntervalMatchBruteForce() throws {
        let hl = try #require(
            HodgesLehmannShift(
                baseline: [412.1, 398.4, 420.7, 405.3, 415.9], current: [430.2, 441.8, 425.6, 438.1, 419.4, 445.0]))
        #expect(abs(hl.shift - 23.25) < 1e-9)
        #expect(abs(try #require(hl.low) - 7.3) < 1e-9)
        #expect(abs(try #require(hl.high) - 39.7) < 1e-9)
        #expect(HodgesLehmannShift.criticalRank(n1: 5, n2: 6, level: 0.95) == 4)

        let overlap = try #require(
            HodgesLehmannShift(
                baseline: [10.5, 12.25, 9.75, 11.0, 13.5, 8.25, 10.0], current: [11.75, 10.25, 12.5, 9.5, 14.0, 11.25]))
        #expect(overlap.shift == 0.75)
        #expect(overlap.low == -1.5)
        #expect(overlap.high == 3.0)
    }

    @Test func tooFewValuesHaveNoInterval() throws {
        let three = try #require(HodgesLehmannShift(baseline: [1, 2, 3], current: [4, 5, 6]))
        #expect(three.shift == 3)
        #expect(three.low == nil && three.high == nil)
        let four = try #require(HodgesLehmannShift(baseline: [1, 2, 3, 4], current: [4.5, 5, 6, 7]))
        #expect(four.low == 0.5 && four.high == 6)
    }

    @Test func normalCriticalRankIsCloseToTheExactOne() throws {
        // 30 × 30 is within the exact limit: k = 318 (exact distribution enumerated in python3);
        // the normal formula used above the limit gives 317 there.
        #expect(HodgesLehmannShift.criticalRank(n1: 30, n2: 30, level: 0.95) == 318)
        #expect(HodgesLehmannShift.criticalRank(n1: 31, n2: 30, level: 0.95) != nil)
        #expect(abs(NormalDistribution.quantile(0.975) - 1.959963984540054) < 1e-12)
    }
}
