/// What the gate concludes for one device × launch kind × metric.
package enum GateVerdict: String, Sendable, Hashable, Codable {
    /// Slower by more than the threshold, and the Mann–Whitney test says it is not noise.
    case regression
    /// Faster by more than the threshold, and significant.
    case improvement
    /// Neither: within the threshold, or not significant.
    case unchanged
    /// Too few measured launches on one side to judge (too many failed, or too few were made).
    case insufficientData = "insufficient-data"
    /// The two sides measured different things: the device's model or iOS version changed under the same
    /// UDID, or the apps differ. Launch times move by themselves across such a change, so no verdict is given
    /// (exit 3) unless the comparison was asked for anyway (`--compare-anyway`).
    case notComparable = "not-comparable"
}

/// The gate's settings.
package struct GateSettings: Sendable, Hashable, Codable {
    /// Relative change, in percent of the baseline median, that counts as a regression (5).
    package var thresholdPercent: Double
    /// Significance level of the two-sided test (0.05); the shift's interval is at `1 − alpha`.
    package var alpha: Double
    /// Fewest measured launches per side to judge at all (5).
    package var minimumLaunches: Int
    /// Metrics to compare; empty = the default choice per device and kind (see `GateMetricChoice`).
    package var metrics: [Metric]
    /// `run --until-verdict`: judge with the sequential design (repeated intervals that hold however often
    /// the run looked) instead of the fixed-sample test; `nil` = the fixed-sample gate.
    package var sequential: SequentialVerdict? = nil
    /// `--compare-anyway`: judge devices whose model or iOS version changed, and another app's baseline, as
    /// usual (the reports name every such change); `false` = such entries are not comparable.
    package var compareAnyway = false

    /// Settings; the defaults are the gate's (5 %, α = 0.05, 5 launches, the default metrics).
    package init(thresholdPercent: Double = 5, alpha: Double = 0.05, minimumLaunches: Int = 5, metrics: [Metric] = []) {
        self.thresholdPercent = thresholdPercent
        self.alpha = alpha
        self.minimumLaunches = minimumLaunches
        self.metrics = metrics
    }
}
