/// An A/B run's launches of one device and kind as pairs: the new build's and the base build's launch of
/// the same iteration and launch index, both `ok` and both measuring the metric. What the paired verdict
/// judges, the same way after every iteration (`PairedVerdictRule`) and when the run ends (`PairedComparison`).
package struct PairedLaunches: Sendable, Hashable {
    /// The metric paired.
    package var metric: Metric
    /// The base build's values, pair by pair, in launch order.
    package var base: [Double]
    /// The new build's values of the same pairs.
    package var new: [Double]
    /// Launch slots (iteration and launch index) either build made, measured or not: what could have paired.
    package var slots: Int

    /// The pairs of `metric` between `base` and `new`, in the order of their iteration and launch index.
    package init(metric: Metric, base: [LaunchPoint], new: [LaunchPoint]) {
        var baseBySlot: [PairSlot: Double] = [:]
        for point in base where point.status == .ok {
            if let value = point[metric] { baseBySlot[PairSlot(point)] = value }
        }
        var pairs: [(slot: PairSlot, base: Double, new: Double)] = []
        for point in new where point.status == .ok {
            let slot = PairSlot(point)
            if let value = point[metric], let other = baseBySlot[slot] { pairs.append((slot, other, value)) }
        }
        pairs.sort { $0.slot < $1.slot }
        slots = Set((base + new).map(PairSlot.init)).count
        self.metric = metric
        self.base = pairs.map(\.base)
        self.new = pairs.map(\.new)
    }

    /// Pairs made.
    package var count: Int { min(base.count, new.count) }

    /// The metrics to pair: `metrics` when given, else the first of the gate's default order
    /// (`total_premain_ms`, `first_frame_ms`, `wall_ms`) that at least one pair measured on both builds.
    package static func metrics(_ metrics: [Metric], base: [LaunchPoint], new: [LaunchPoint]) -> [Metric] {
        if !metrics.isEmpty { return metrics }
        let chosen = GateMetricChoice.defaultOrder.first {
            PairedLaunches(metric: $0, base: base, new: new).count > 0
        }
        return chosen.map { [$0] } ?? [GateMetricChoice.defaultOrder[0]]
    }
}

/// A launch's place in its build's run: pairs meet at the same iteration and launch index.
private struct PairSlot: Hashable, Comparable {
    let iteration: Int
    let launchIndex: Int

    init(_ point: LaunchPoint) {
        iteration = point.iteration
        launchIndex = point.launchIndex
    }

    static func < (a: PairSlot, b: PairSlot) -> Bool { (a.iteration, a.launchIndex) < (b.iteration, b.launchIndex) }
}
