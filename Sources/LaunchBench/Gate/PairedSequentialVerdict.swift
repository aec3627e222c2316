import Foundation

/// The verdict of an interleaved run (both builds on one phone, one pair per iteration), decided after
/// every pair: the paired counterpart of ``SequentialVerdict``.
///
/// Every look `k` (from `minimumPairs` pairs up to `maxPairs`) builds a repeated confidence interval for
/// the ``PairedShift`` (Hodges–Lehmann on the per-pair log ratios, Tukey's interval from the signed-rank
/// law) at the level of a ``GroupSequentialBoundary`` with Lan–DeMets O'Brien–Fleming spending; the
/// information of the signed-rank statistic grows with the pairs, so look `k` is at `t_k = k/maxPairs`.
/// All the intervals hold the true shift together with probability ≥ 1 − α, so stopping at any look keeps
/// the error rates:
/// - **regression** when the interval lies above 0 and the shift is beyond +threshold;
/// - **improvement**, the mirror image;
/// - **unchanged** when the whole interval lies within ±threshold;
/// - at `maxPairs` still open: **no change shown** (exit 0, as the fixed gate's "not significant"), with the
///   smallest change these pairs could have shown, so "no regression" is never read as "no change".
///   Proving a change smaller than the threshold takes `n ≈ ((c + z)·σ·√(π/3)/T)²` pairs, which at 10 %
///   launch noise (σ ≈ 14 % per pair) and T = 5 % is about 90: arithmetic, not a defect of the design.
/// - **too few pairs** when the run ended with fewer pairs than the exact signed-rank test can reject from
///   (6 at α = 0.05: 5 pairs give p ≥ 0.0625 whatever the change): insufficient data (exit 3), never a pass.
///   So the first look and the cap are at least that many pairs.
package struct PairedSequentialVerdict: Sendable, Hashable, Codable {
    /// The first look.
    package var minimumPairs: Int
    /// The last look (`--max-iterations`).
    package var maxPairs: Int

    /// A design; `minimumPairs` is raised to the fewest pairs the test can reject from at `alpha`
    /// (``fewestPairs(alpha:)``), and `maxPairs` to `minimumPairs`.
    package init(minimumPairs: Int = 5, maxPairs: Int = 40, alpha: Double = 0.05) {
        self.minimumPairs = max(Self.fewestPairs(alpha: alpha), minimumPairs)
        self.maxPairs = max(maxPairs, self.minimumPairs)
    }

    /// The fewest pairs from which the exact two-sided signed-rank test can reject at `alpha` (6 at 0.05).
    package static func fewestPairs(alpha: Double) -> Int { SignedRankDistribution.fewestPairsToReject(alpha: alpha) }

    /// Where one device × kind stands after a look.
    package enum Decision: Sendable, Hashable {
        /// Pair again.
        case `continue`
        /// Settled by the pairs so far.
        case settled(GateVerdict, PairedShift, smallestVisiblePercent: Double?)
        /// `maxPairs` made and neither settled: no change shown, and the least these pairs could show.
        case noChangeShown(PairedShift?, smallestVisiblePercent: Double?)
        /// The pairs ended fewer than the test can reject from (`fewest`, at `alpha`): nothing could show.
        case tooFewPairs(pairs: Int, fewest: Int, alpha: Double)

        /// Whether the device may stop pairing for this kind.
        package var isFinal: Bool { self != .continue }

        /// What the gate reports: a cap without a verdict is no change shown, as the fixed gate's.
        package var verdict: GateVerdict? {
            switch self {
            case .continue: return nil
            case .settled(let verdict, _, _): return verdict
            case .noChangeShown: return .unchanged
            case .tooFewPairs: return .insufficientData
            }
        }
    }

    /// The decision after `min(base.count, new.count)` pairs.
    /// - Parameters:
    ///   - base, new: the two builds' measured values, pair by pair.
    ///   - thresholdPercent, alpha: the gate's settings.
    package func decide(base: [Double], new: [Double], thresholdPercent: Double, alpha: Double) -> Decision {
        let logs = PairedShift.logRatios(base: Array(base.prefix(maxPairs)), new: Array(new.prefix(maxPairs)))
        let k = logs.count
        let atCap = min(base.count, new.count) >= maxPairs
        let fewest = max(minimumPairs, Self.fewestPairs(alpha: alpha))
        guard k >= fewest else {
            return atCap ? .tooFewPairs(pairs: k, fewest: fewest, alpha: alpha) : .continue
        }
        let level = Self.boundary(self, alpha: alpha).level(atLook: min(k, maxPairs) - minimumPairs)
        // A look whose level no interval of k pairs reaches can reject nothing: never a pass at the cap.
        guard SignedRankDistribution.criticalRank(n: k, level: level) != nil else {
            return atCap
                ? .tooFewPairs(pairs: k, fewest: Self.fewestPairs(alpha: 1 - level), alpha: 1 - level) : .continue
        }
        // Asked only of a final decision: a run looks after every pair.
        var visible: Double? { SmallestVisibleChange.paired(logRatios: logs, level: level) }
        let shift = PairedShift(logRatios: logs, level: level)
        guard let shift, let low = shift.lowPercent, let high = shift.highPercent else {
            return atCap ? .noChangeShown(shift, smallestVisiblePercent: visible) : .continue
        }
        if low > 0 && shift.shiftPercent > thresholdPercent {
            return .settled(.regression, shift, smallestVisiblePercent: visible)
        }
        if high < 0 && shift.shiftPercent < -thresholdPercent {
            return .settled(.improvement, shift, smallestVisiblePercent: visible)
        }
        if low > -thresholdPercent && high < thresholdPercent {
            return .settled(.unchanged, shift, smallestVisiblePercent: visible)
        }
        return atCap ? .noChangeShown(shift, smallestVisiblePercent: visible) : .continue
    }

    /// One sentence for the gate's table: the verdict, the pairs it took, the least it could have seen.
    package static func describe(_ decision: Decision, thresholdPercent: Double) -> String {
        let threshold = DecimalText.fixed(thresholdPercent, maxFractionDigits: 2)
        func interval(_ shift: PairedShift) -> String {
            let range = shift.lowPercent.flatMap { low in shift.highPercent.map { "\(percent(low))…\(percent($0))" } }
            return "shift \(percent(shift.shiftPercent))"
                + (range.map {
                    ", \(DecimalText.fixed(shift.level * 100, maxFractionDigits: 2)) % repeated interval \($0)"
                }
                    ?? "")
        }
        func visible(_ value: Double?) -> String {
            value.map {
                "; the smallest change these pairs could show is ±\(DecimalText.fixed($0, maxFractionDigits: 1)) %"
            }
                ?? ""
        }
        switch decision {
        case .continue:
            return "Still open: the run ended before the pairs decided."
        case .settled(let verdict, let shift, let smallest):
            let pairs = "\(shift.pairs) pair\(shift.pairs == 1 ? "" : "s")"
            switch verdict {
            case .regression:
                return "Slower after \(pairs): \(interval(shift)), beyond +\(threshold) %\(visible(smallest))."
            case .improvement:
                return "Faster after \(pairs): \(interval(shift)), beyond −\(threshold) %\(visible(smallest))."
            default:
                return "Unchanged within ±\(threshold) % after \(pairs): \(interval(shift))\(visible(smallest))."
            }
        case .tooFewPairs(let pairs, let fewest, let alpha):
            return tooFewPairsText(pairs: pairs, fewest: fewest, alpha: alpha)
        case .noChangeShown(let shift, let smallest):
            guard let shift else { return "No change shown: too few measured pairs\(visible(smallest))." }
            return "No change shown after \(shift.pairs) pairs (the cap, --max-iterations): \(interval(shift)), "
                + "neither beyond ±\(threshold) % nor within it\(visible(smallest))."
        }
    }

    /// Why `pairs` pairs give no verdict, and how many would.
    static func tooFewPairsText(pairs: Int, fewest: Int, alpha: Double) -> String {
        let p = DecimalText.fixed(SignedRankDistribution.smallestPValue(n: pairs), maxFractionDigits: 4)
        let alphaText = DecimalText.fixed(alpha, maxFractionDigits: 4)
        return "Undecided: \(pairs) measured pair\(pairs == 1 ? "" : "s"), and the signed-rank test needs \(fewest) "
            + "to show any change at α = \(alphaText) (from \(pairs) its smallest p is \(p)); measure at least "
            + "\(fewest) pairs."
    }

    private static func percent(_ value: Double) -> String {
        (value >= 0 ? "+" : "") + DecimalText.fixed(value, maxFractionDigits: 1) + " %"
    }

    /// Boundaries depend only on the design and α; a run asks after every pair of every device.
    private static let cache = Locked<[CacheKey: GroupSequentialBoundary]>([:])

    private struct CacheKey: Hashable {
        let minimum: Int
        let maximum: Int
        let alpha: Double
    }

    static func boundary(_ design: PairedSequentialVerdict, alpha: Double) -> GroupSequentialBoundary {
        let key = CacheKey(minimum: design.minimumPairs, maximum: design.maxPairs, alpha: alpha)
        if let known = cache.withLock({ $0[key] }) { return known }
        let fractions = (design.minimumPairs...design.maxPairs).map { Double($0) / Double(design.maxPairs) }
        let boundary = GroupSequentialBoundary(informationFractions: fractions, alpha: alpha)
        cache.withLock { $0[key] = boundary }
        return boundary
    }
}
