import Foundation

/// `run --baseline B --until-verdict`: launch on a device only until the gate's verdict is settled.
///
/// Re-running the fixed-sample gate after every launch and stopping at the first "regression" would
/// call far more than 5 % of unchanged apps slower (each look is another chance to be fooled). Instead
/// every look `k` (from `minimumLaunches` current launches up to `maxLaunches`) builds a *repeated
/// confidence interval* for the Hodges–Lehmann shift at the level of a group-sequential boundary
/// (``GroupSequentialBoundary``: Lan–DeMets O'Brien–Fleming spending of the gate's α over the looks;
/// Jennison & Turnbull 2000, ch. 9). All those intervals hold the true shift together with probability
/// at least 1 − α, so a decision taken at any look keeps the gate's error rates:
/// - **regression** when the interval lies above 0 and the shift is beyond +threshold (the fixed gate's
///   "significant and beyond the threshold");
/// - **improvement**, the mirror image;
/// - **unchanged** when the whole interval lies within ±threshold;
/// - otherwise launch again, and at `maxLaunches` stop as **insufficient data** (exit 3): the cap was
///   reached before the data could tell.
///
/// The information of look `k` against a fixed baseline of `n` launches is that of the Mann–Whitney
/// statistic, `I_k ∝ n·k / (n + k + 1)` (its variance is `n·k·(n + k + 1)/12`), so the fraction of a
/// look is `t_k = I_k / I_max`; the baseline's own noise is why the last launches add less than the first.
package struct SequentialVerdict: Sendable, Hashable, Codable {
    /// The first look: launches of the current run before anything is decided (the gate's minimum).
    package var minimumLaunches: Int
    /// The last look (`--max-iterations`): past it the device stops with insufficient data.
    package var maxLaunches: Int

    /// A design; `maxLaunches` is raised to `minimumLaunches` if below it.
    package init(minimumLaunches: Int = 5, maxLaunches: Int = 30) {
        self.minimumLaunches = max(2, minimumLaunches)
        self.maxLaunches = max(maxLaunches, self.minimumLaunches)
    }

    /// Where one device × kind stands after a look.
    package enum Decision: Sendable, Hashable {
        /// Launch again.
        case `continue`
        /// Settled: `verdict` after `launches` current launches, with the interval that settled it (in %
        /// of the baseline median) at `level`.
        case settled(
            GateVerdict, launches: Int, shiftPercent: Double, lowPercent: Double, highPercent: Double, level: Double)
        /// `maxLaunches` made and still open: insufficient data.
        case capReached(launches: Int, lowPercent: Double?, highPercent: Double?)

        /// Whether the device may stop launching for this kind.
        package var isFinal: Bool { self != .continue }
    }

    /// The decision for one device × kind × metric after `current.count` launches.
    /// - Parameters:
    ///   - baseline: the baseline's measured values (ms); `current`: the current run's so far.
    ///   - thresholdPercent, alpha: the gate's settings.
    package func decide(baseline: [Double], current: [Double], thresholdPercent: Double, alpha: Double) -> Decision {
        let k = min(current.count, maxLaunches)
        guard k >= minimumLaunches, !baseline.isEmpty else { return .continue }
        let boundary = Self.boundary(baselineCount: baseline.count, design: self, alpha: alpha)
        let level = boundary.level(atLook: k - minimumLaunches)
        let atCap = current.count >= maxLaunches
        guard let median = LaunchesNeeded.median(baseline), median > 0,
            let hl = HodgesLehmannShift(baseline: baseline, current: Array(current.prefix(k)), level: level),
            let low = hl.low, let high = hl.high
        else { return atCap ? .capReached(launches: k, lowPercent: nil, highPercent: nil) : .continue }
        let (shift, lowPercent, highPercent) = (hl.shift / median * 100, low / median * 100, high / median * 100)
        func settled(_ verdict: GateVerdict) -> Decision {
            .settled(
                verdict, launches: k, shiftPercent: shift, lowPercent: lowPercent, highPercent: highPercent,
                level: level)
        }
        if lowPercent > 0 && shift > thresholdPercent { return settled(.regression) }
        if highPercent < 0 && shift < -thresholdPercent { return settled(.improvement) }
        if lowPercent > -thresholdPercent && highPercent < thresholdPercent { return settled(.unchanged) }
        return atCap ? .capReached(launches: k, lowPercent: lowPercent, highPercent: highPercent) : .continue
    }

    /// The information fractions of the looks `minimumLaunches…maxLaunches` against `baselineCount` launches.
    func informationFractions(baselineCount n: Int) -> [Double] {
        func information(_ k: Int) -> Double { Double(n * k) / Double(n + k + 1) }
        let total = information(maxLaunches)
        return (minimumLaunches...maxLaunches).map { information($0) / total }
    }

    /// One sentence for the gate's table: the verdict, the launches it took, why it stopped.
    package static func describe(_ decision: Decision, thresholdPercent: Double) -> String {
        let threshold = DecimalText.fixed(thresholdPercent, maxFractionDigits: 2)
        switch decision {
        case .continue:
            return "Still open: the run ended before the verdict was settled."
        case .settled(let verdict, let n, let shift, let low, let high, let level):
            let interval =
                "shift \(percent(shift)), \(DecimalText.fixed(level * 100, maxFractionDigits: 2)) % repeated interval "
                + "\(percent(low))…\(percent(high))"
            switch verdict {
            case .regression: return "Slower after \(n) launches: \(interval), beyond +\(threshold) %."
            case .improvement: return "Faster after \(n) launches: \(interval), beyond −\(threshold) %."
            default: return "Unchanged within ±\(threshold) % after \(n) launches: \(interval)."
            }
        case .capReached(let n, let low, let high):
            let reached = low.flatMap { l in high.map { "the interval \(percent(l))…\(percent($0))" } } ?? "no interval"
            return "Not settled after \(n) launches (the cap, --max-iterations): \(reached) still reaches past "
                + "±\(threshold) %; insufficient data."
        }
    }

    private static func percent(_ value: Double) -> String {
        (value >= 0 ? "+" : "") + DecimalText.fixed(value, maxFractionDigits: 1) + " %"
    }

    /// Boundaries depend only on the counts and α; a run asks after every launch of every device.
    private static let cache = Locked<[CacheKey: GroupSequentialBoundary]>([:])

    private struct CacheKey: Hashable {
        let baselineCount: Int
        let minimum: Int
        let maximum: Int
        let alpha: Double
    }

    static func boundary(baselineCount: Int, design: SequentialVerdict, alpha: Double) -> GroupSequentialBoundary {
        let key = CacheKey(
            baselineCount: baselineCount, minimum: design.minimumLaunches, maximum: design.maxLaunches, alpha: alpha)
        if let known = cache.withLock({ $0[key] }) { return known }
        let boundary = GroupSequentialBoundary(
            informationFractions: design.informationFractions(baselineCount: baselineCount), alpha: alpha)
        cache.withLock { $0[key] = boundary }
        return boundary
    }
}
