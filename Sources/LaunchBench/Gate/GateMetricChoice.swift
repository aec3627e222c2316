/// The metrics one device × launch kind is judged on, and what makes a metric unlike between the two sides.
///
/// By default the gate judges the first of `total_premain_ms`, `first_frame_ms`, `wall_ms` that the baseline
/// measured. When this run did not measure it (a kdebug baseline against a run whose trace session was lost),
/// that row stays and is `not comparable`, naming what is missing: falling back to the next metric would judge
/// a number the baseline's verdict was never about (a first frame from LaunchProbe's markers under a debugger
/// instead of pre-main) and pass without a word. With `--compare-anyway` the first metric both sides measured
/// is judged instead, its reason and a note naming the metric left out.
struct GateMetricChoice {
    /// The metrics tried in order by default.
    static let defaultOrder: [Metric] = [.totalPremainMs, .firstFrameMs, .wallMs]

    /// The metrics to judge, in order.
    private(set) var metrics: [Metric] = []
    /// A metric one side measured and the other did not, in words, by metric.
    private(set) var missing: [Metric: String] = [:]
    /// With `--compare-anyway`: the baseline's metric this run lacks, and the one judged instead.
    private(set) var replaced: (missing: Metric, by: Metric)?
    /// Each side's sources (baseline, current).
    let sources: (old: MeasurementSources, new: MeasurementSources)
    /// How the text names the two sides: the baseline and this run, or BASE and NEW of an A/B run.
    let names: (old: String, new: String)

    /// The choice for one device × kind.
    /// - Parameters:
    ///   - baseline, current: each side's launches of the kind (failed ones included).
    ///   - settings: `--metric` (empty: the default order) and `--compare-anyway`.
    ///   - sources: each side's sources, to name why a metric is missing.
    ///   - names: how the two sides are named in the text.
    init(
        baseline: [LaunchPoint], current: [LaunchPoint], settings: GateSettings,
        sources: (old: MeasurementSources, new: MeasurementSources),
        names: (old: String, new: String) = ("the baseline", "this run")
    ) {
        self.sources = sources
        self.names = names
        func measured(_ points: [LaunchPoint], _ metric: Metric) -> Bool {
            points.contains { !$0.status.isFailure && $0[metric] != nil }
        }
        // A side whose launches all failed lacks every metric for that reason, which the verdict names.
        let baselineMeasured = baseline.contains { !$0.status.isFailure }
        let currentMeasured = current.contains { !$0.status.isFailure }
        if !settings.metrics.isEmpty {
            metrics = settings.metrics
            for metric in metrics {
                if currentMeasured, measured(baseline, metric), !measured(current, metric) {
                    missing[metric] = describe(metric, measuredIn: names.old, notIn: names.new)
                } else if baselineMeasured, measured(current, metric), !measured(baseline, metric) {
                    missing[metric] = describe(metric, measuredIn: names.new, notIn: names.old)
                }
            }
            return
        }
        let both = Self.defaultOrder.first { measured(baseline, $0) && measured(current, $0) }
        // The baseline measured nothing: still one row, so the failures are reported and judged.
        guard let first = Self.defaultOrder.first(where: { measured(baseline, $0) }) else {
            metrics = [both ?? Self.defaultOrder[0]]
            return
        }
        guard currentMeasured, !measured(current, first) else {
            metrics = [first]
            return
        }
        missing[first] = describe(first, measuredIn: names.old, notIn: names.new)
        if settings.compareAnyway, let both {
            metrics = [both]
            replaced = (first, both)
        } else {
            metrics = [first]
        }
    }

    /// `total_premain_ms measured in the baseline, not in this run (pre-main source kdebug → none)`.
    private func describe(_ metric: Metric, measuredIn: String, notIn: String) -> String {
        let why = MeasurementSources.changes(metric, old: sources.old, new: sources.new)
        return "\(metric.rawValue) measured in \(measuredIn), not in \(notIn)"
            + (why.isEmpty ? "" : " (\(why.joined(separator: ", ")))")
    }

    /// What makes `metric` unlike between the sides: a side without it (or, judged instead of a missing one,
    /// that one), then the changes of its sources.
    func changes(of metric: Metric) -> [String] {
        let absent = missing[metric] ?? (replaced?.by == metric ? replaced.flatMap { missing[$0.missing] } : nil)
        // A missing metric's words already name its own sources' changes: each is said once.
        let sourceChanges = MeasurementSources.changes(metric, old: sources.old, new: sources.new).filter {
            absent?.contains($0) != true
        }
        return (absent.map { [$0] } ?? []) + sourceChanges
    }

    /// With `--compare-anyway`, which metric was judged instead of the one this run lacks; `nil` otherwise.
    func note(device: DeviceIdentity, kind: LaunchKind) -> String? {
        guard let replaced else { return nil }
        return "\(device.name) (\(device.udid)) \(kind.rawValue): \(missing[replaced.missing] ?? "") — compared "
            + "anyway (--compare-anyway) on \(replaced.by.rawValue), which both measured."
    }
}
