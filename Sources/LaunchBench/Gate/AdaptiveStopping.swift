/// When to stop launching on a device under `--target-precision PCT`: as soon as the 95 %
/// confidence interval of the cold median lies within ±PCT % of the median, after at least
/// `minimumIterations`, or at `maxIterations`.
///
/// The interval is `MedianConfidenceInterval` (distribution-free, from order statistics), the one
/// the reports show, so "precise enough" means what the summary prints. It needs at least 6 values
/// for 95 %, so the rule never stops before 6 measured cold launches unless `maxIterations` says so.
package struct AdaptiveStopping: Sendable, Hashable, Codable {
    /// The interval's half width to reach, in % of the median (`--target-precision`).
    package var targetPrecisionPercent: Double
    /// Iterations made before the interval is looked at.
    var minimumIterations: Int
    /// Iterations after which the device stops anyway (`--max-iterations`).
    package var maxIterations: Int

    /// A rule; `maxIterations` is raised to `minimumIterations` if below it.
    package init(targetPrecisionPercent: Double, minimumIterations: Int = 5, maxIterations: Int = 50) {
        self.targetPrecisionPercent = targetPrecisionPercent
        self.minimumIterations = minimumIterations
        self.maxIterations = max(maxIterations, minimumIterations)
    }

    /// What to do after an iteration.
    package enum Decision: Sendable, Hashable {
        /// Launch another iteration.
        case `continue`
        /// Stop: the interval is within the target after `iterations`.
        case reachedPrecision(iterations: Int, halfWidthPercent: Double)
        /// Stop: `maxIterations` made without reaching the target; `halfWidthPercent` is what was
        /// reached (`nil` when no interval could be computed, e.g. every launch failed).
        case reachedLimit(iterations: Int, halfWidthPercent: Double?)
    }

    /// - Parameters:
    ///   - iterations: cold iterations made so far on this device (failed ones included).
    ///   - coldValues: the measured cold values so far (the gate's metric).
    package func decide(iterations: Int, coldValues: [Double]) -> Decision {
        let reached = Self.halfWidthPercent(coldValues)
        if iterations >= minimumIterations, let reached, reached <= targetPrecisionPercent {
            return .reachedPrecision(iterations: iterations, halfWidthPercent: reached)
        }
        if iterations >= maxIterations { return .reachedLimit(iterations: iterations, halfWidthPercent: reached) }
        return .continue
    }

    /// The values the rule watches: the cold launches' gate metric (`total_premain_ms` where
    /// measured, else `first_frame_ms`, else `wall_ms`), failed and set-aside launches left out.
    static func coldValues(_ samples: [Sample]) -> [Double] {
        coldValues(points: samples.filter { $0.kind == .cold && !$0.setAside }.map(LaunchPoint.init))
    }

    /// `coldValues(_:)` of a device's cold launches' points.
    static func coldValues(points: [LaunchPoint]) -> [Double] {
        let cold = points.filter { !$0.status.isFailure }
        guard let metric = GateMetricChoice.defaultOrder.first(where: { m in cold.contains { $0[m] != nil } }) else {
            return []
        }
        return cold.compactMap { $0[metric] }.filter(\.isFinite)
    }

    /// The larger distance from the median to an end of its 95 % interval, in % of the median;
    /// `nil` when there is no interval (fewer than 6 values) or the median is not positive.
    static func halfWidthPercent(_ values: [Double]) -> Double? {
        let sorted = values.sorted()
        guard !sorted.isEmpty, let interval = MedianConfidenceInterval(sorted: sorted) else { return nil }
        let median = Percentile.of(sorted: sorted, fraction: 0.5)
        guard median > 0 else { return nil }
        return max(median - interval.low, interval.high - median) / median * 100
    }

    /// "stopped after 14 iterations: median ±2.8 %" / "reached --max-iterations 50: median ±7.1 % (target ±3 %)".
    package static func describe(_ decision: Decision, target: Double) -> String {
        switch decision {
        case .continue: return "still measuring"
        case .reachedPrecision(let n, let width):
            return "\(n) iterations: cold median known within ±\(DecimalText.fixed(width, maxFractionDigits: 1)) % "
                + "(target ±\(DecimalText.fixed(target, maxFractionDigits: 2)) %)"
        case .reachedLimit(let n, let width):
            let reached = width.map { "±\(DecimalText.fixed($0, maxFractionDigits: 1)) %" } ?? "no interval"
            return
                "\(n) iterations (the maximum): cold median within \(reached), target ±\(DecimalText.fixed(target, maxFractionDigits: 2)) % not reached"
        }
    }
}
