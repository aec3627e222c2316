import Testing

@testable import LaunchBench

@Suite struct PairwiseDifferencesTests {
    /// The definition: every difference listed and sorted.
    private func bruteForce(_ x: [Double], _ y: [Double]) -> [Double] {
        x.flatMap { b in y.map { $0 - b } }.sorted()
    }

    /// Values with many ties (small integer grid) or none (launch-like decimals), by `seed`.
    private func sample(_ count: Int, ties: Bool, offset: Double, random: inout SeededRandom) -> [Double] {
        (0..<count).map { _ in
            ties
                ? Double(Int.random(in: 0...6, using: &random)) + offset
                : (Double.random(in: 300...500, using: &random) * 100).rounded() / 100 + offset
        }
    }

    @Test func everyRankEqualsTheSortedList() {
        var random = SeededRandom(seed: 32)
        for round in 0..<40 {
            let n = Int.random(in: 1...45, using: &random)
            let m = Int.random(in: 1...45, using: &random)
            let ties = round % 2 == 0
            let x = sample(n, ties: ties, offset: 0, random: &random)
            let y = sample(m, ties: ties, offset: Double(round % 5), random: &random)
            let sorted = bruteForce(x, y)
            let differences = PairwiseDifferences(baseline: x, current: y)
            #expect(differences.count == sorted.count)
            let selected = (1...sorted.count).map { differences.element(rank: $0) }
            // Bit for bit: a zero difference is +0 either way round.
            #expect(selected.map(\.bitPattern) == sorted.map(\.bitPattern), "n=\(n) m=\(m) ties=\(ties)")
        }
    }

    @Test func largerSamplesAgreeAtSampledRanks() {
        // Large enough for many selection rounds before the last candidates are gathered.
        var random = SeededRandom(seed: 9)
        for round in 0..<6 {
            let x = sample(Int.random(in: 200...400, using: &random), ties: round < 3, offset: 0, random: &random)
            let y = sample(Int.random(in: 100...600, using: &random), ties: round < 3, offset: 2, random: &random)
            let sorted = bruteForce(x, y)
            let differences = PairwiseDifferences(baseline: x, current: y)
            let ranks =
                [1, 2, sorted.count / 3, sorted.count / 2, sorted.count / 2 + 1, sorted.count - 1, sorted.count]
                + (0..<40).map { _ in Int.random(in: 1...sorted.count, using: &random) }
            for rank in ranks {
                #expect(differences.element(rank: rank) == sorted[rank - 1], "rank \(rank) of \(sorted.count)")
            }
        }
    }

    @Test func hodgesLehmannEqualsTheBruteForceEstimate() throws {
        var random = SeededRandom(seed: 2026)
        for round in 0..<40 {
            let x = sample(Int.random(in: 1...90, using: &random), ties: round % 3 == 0, offset: 0, random: &random)
            let y = sample(Int.random(in: 1...90, using: &random), ties: round % 3 == 0, offset: 1, random: &random)
            let level = [0.9, 0.95, 0.99][round % 3]
            let sorted = bruteForce(x, y)
            let count = sorted.count
            let shift = try #require(HodgesLehmannShift(baseline: x, current: y, level: level))
            let median = count % 2 == 1 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2
            #expect(shift.shift == median)
            if let k = HodgesLehmannShift.criticalRank(n1: x.count, n2: y.count, level: level) {
                #expect(shift.low == sorted[k - 1] && shift.high == sorted[count - k])
            } else {
                #expect(shift.low == nil && shift.high == nil)
            }
        }
    }

    @Test func hundredThousandAgainstHundredThousandNeedsNoDifferenceList() throws {
        // 10¹⁰ differences: listing them would take 80 GB. Here y = x + 3.5, so the differences are
        // j − i + 3.5, symmetric around 3.5.
        let x = (0..<100_000).map(Double.init)
        let y = x.map { $0 + 3.5 }
        let shift = try #require(HodgesLehmannShift(baseline: x, current: y))
        #expect(shift.shift == 3.5)
        let low = try #require(shift.low)
        let high = try #require(shift.high)
        #expect(low < 3.5 && high > 3.5)
        #expect(3.5 - low == high - 3.5)
    }
}
