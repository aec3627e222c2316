import Foundation

/// A baseline run compared with the current one, per matched device × launch kind × metric.
package struct GateComparison: Sendable, Hashable {
    /// The threshold, level and metrics the verdicts were made with.
    package var settings: GateSettings
    /// Matched devices first (current run order), then kind (cold, warm), then metric.
    package var entries: [GateEntry]
    /// Devices of the baseline that no current device matched.
    var unmatchedBaseline: [DeviceIdentity]
    /// Devices of the current run that no baseline device matched.
    var unmatchedCurrent: [DeviceIdentity]
    /// What the reader or the matching had to say (device swaps, skipped lines…).
    package var notes: [String]

    /// The entries judged slower: a real change beyond the threshold.
    package var regressions: [GateEntry] { entries.filter { $0.verdict == .regression } }
    /// The entries judged faster beyond the threshold.
    var improvements: [GateEntry] { entries.filter { $0.verdict == .improvement } }
    /// The entries with too few launches on a side to judge.
    package var undecided: [GateEntry] {
        entries.filter { $0.verdict == .insufficientData || $0.verdict == .notComparable }
    }
}

/// One side's launches of one device × kind, for one metric.
package struct GateSide: Sendable, Hashable {
    /// Every launch of this kind, failed or not.
    package var launches: Int
    /// Launches with a failure status (timeout, crash…).
    package var failures: Int
    /// The metric's values of the launches that measured it.
    package var values: [Double]
    /// The median of `values`, ms; `nil` without values.
    package var median: Double? { LaunchesNeeded.median(values) }

    /// One side's counts and values.
    package init(launches: Int, failures: Int, values: [Double]) {
        self.launches = launches
        self.failures = failures
        self.values = values
    }
}

/// The comparison of one device × launch kind × metric.
package struct GateEntry: Sendable, Hashable {
    /// The device in the baseline run.
    package var baselineDevice: DeviceIdentity
    /// The device in the current run it was matched with (the same phone, or the same model and iOS).
    package var currentDevice: DeviceIdentity
    /// How the two devices were matched.
    package var matchedBy: DeviceMatching.Basis
    /// Cold or warm.
    package var kind: LaunchKind
    /// The metric compared.
    package var metric: Metric
    /// The baseline's launches.
    package var baseline: GateSide
    /// The current run's launches.
    package var current: GateSide
    /// Mann–Whitney test of baseline against current; `nil` when a side has no values.
    package var test: MannWhitneyResult?
    /// Hodges–Lehmann shift, current − baseline, in ms; `nil` when a side has no values.
    package var shift: HodgesLehmannShift?
    /// Regression, improvement, no change, or too little data to say.
    package var verdict: GateVerdict
    /// Why, in one sentence a CI log reader understands.
    package var reason: String
    /// Launches per side that would detect a change of twice the threshold (see `LaunchesNeeded`).
    package var launchesNeeded: Int?
    /// An unchanged verdict whose interval still reaches past ±threshold: about `launchesNeeded` launches per
    /// side would tell (the reason says so; the reports list such entries with the changes).
    package var moreLaunchesWouldTell = false
    /// Which phases and images moved on this device × kind; `nil` only for entries made by hand.
    package var explanation: GateExplanation? = nil
    /// What differs between the two sides of this entry (model, iOS version, app), in words; empty when
    /// nothing does. Without `--compare-anyway` a non-empty list makes the entry not comparable.
    package var changes: [String] = []
    /// With `run --until-verdict`: where the sequential design stands (what stopped the device); `nil` for
    /// the fixed-sample gate.
    package var sequential: SequentialVerdict.Decision? = nil
    /// The smallest change these launches could have shown, % (``SmallestVisibleChange/twoRuns``).
    package var smallestVisiblePercent: Double? = nil
    /// The least any current run could show against this baseline, % (``SmallestVisibleChange/baselineFloor``).
    package var baselineFloorPercent: Double? = nil

    /// `+84 ms, of which dylib loading +71 ms: new bundle dylib Analytics.framework`, when anything is known.
    package var explanationSentence: String? { explanation?.sentence(totalShiftMs: shift?.shift) }

    /// Change of the median, in % of the baseline median.
    package var medianChangePercent: Double? {
        guard let b = baseline.median, let c = current.median, b > 0 else { return nil }
        return (c - b) / b * 100
    }

    /// The shift and its interval, in % of the baseline median.
    package var shiftPercent: Double? { percent(shift?.shift) }
    /// The shift interval's low end, in % of the baseline median.
    package var shiftLowPercent: Double? { percent(shift?.low) }
    /// The shift interval's high end, in % of the baseline median.
    package var shiftHighPercent: Double? { percent(shift?.high) }

    private func percent(_ ms: Double?) -> Double? {
        guard let ms, let b = baseline.median, b > 0 else { return nil }
        return ms / b * 100
    }

    /// `iPhone 11 (iPhone12,1) · cold · total_premain_ms`, the name of this check in reports.
    package var title: String { "\(currentDevice.name) · \(kind.rawValue) · \(metric.rawValue)" }
}

extension GateComparison {
    /// Compares two sets of samples (each of one app, one run).
    /// - Parameters:
    ///   - baseline, current: the samples of each run (failed launches included: they count as failures).
    ///   - settings: threshold, level, minimum launches, metrics.
    package init(baseline: [Sample], current: [Sample], settings: GateSettings = GateSettings()) {
        self.init(
            baseline: GateLaunches(samples: baseline), current: GateLaunches(samples: current), settings: settings)
    }

    /// Compares two runs' launches (each of one app, one run), as `init(baseline:current:settings:)` does.
    package init(baseline: GateLaunches, current: GateLaunches, settings: GateSettings = GateSettings()) {
        self.settings = settings
        let matching = DeviceMatching.match(baseline: baseline.devices, current: current.devices)
        unmatchedBaseline = matching.unmatchedBaseline
        unmatchedCurrent = matching.unmatchedCurrent
        notes = []
        entries = []
        for pair in matching.pairs {
            if pair.basis == .modelAndOS {
                notes.append(
                    "\(pair.current.name) (\(pair.current.udid)) is compared with \(pair.baseline.name) "
                        + "(\(pair.baseline.udid)) of the baseline: same model and iOS \(pair.current.osVersion), another phone."
                )
            }
            if pair.basis == .model {
                notes.append(
                    "\(pair.current.name) (\(pair.current.udid), iOS \(pair.current.osVersion)) stands against "
                        + "\(pair.baseline.name) (\(pair.baseline.udid), iOS \(pair.baseline.osVersion)) of the "
                        + "baseline: the same model on another iOS version, another phone.")
            }
            let oldSources = baseline.counts.sources(of: pair.baseline.udid)
            let newSources = current.counts.sources(of: pair.current.udid)
            for kind in LaunchKind.allCases {
                // A kind measured on one side only (`--warm 0` in one run) is not a comparison.
                guard let oldOfKind = baseline.launches(pair.baseline.udid, kind),
                    let newOfKind = current.launches(pair.current.udid, kind),
                    !oldOfKind.points.isEmpty, !newOfKind.points.isEmpty
                else { continue }
                let explanation = GateExplanation(
                    baseline: oldOfKind.points, oldOfKind.images, current: newOfKind.points, newOfKind.images,
                    level: 1 - settings.alpha)
                let choice = GateMetricChoice(
                    baseline: oldOfKind.points, current: newOfKind.points, settings: settings,
                    sources: (oldSources, newSources))
                if let note = choice.note(device: pair.current, kind: kind) { notes.append(note) }
                for metric in choice.metrics {
                    var entry = Self.entry(
                        pair: pair, kind: kind, metric: metric, baseline: Self.side(oldOfKind.points, metric),
                        current: Self.side(newOfKind.points, metric), settings: settings)
                    entry.explanation = explanation
                    entry.markChanges(
                        Self.changes(pair) + choice.changes(of: metric), compareAnyway: settings.compareAnyway)
                    entries.append(entry)
                }
            }
        }
        for device in unmatchedBaseline {
            notes.append(
                "Baseline device \(device.name) (\(device.udid), \(device.productType), iOS \(device.osVersion)) "
                    + "has no counterpart in the current run (no same UDID, no same model and iOS version).")
        }
        for device in unmatchedCurrent {
            notes.append(
                "Current device \(device.name) (\(device.udid), \(device.productType), iOS \(device.osVersion)) "
                    + "has no counterpart in the baseline; it is not judged.")
        }
    }

    /// The first of the default metrics both `baseline` and `current` measured (`--metric` when given): what a
    /// reference app's gap is measured on, where no source has to match.
    static func metrics(baseline: [LaunchPoint], current: [LaunchPoint], settings: GateSettings) -> [Metric] {
        if !settings.metrics.isEmpty { return settings.metrics }
        let measuredOnBoth = GateMetricChoice.defaultOrder.first { metric in
            baseline.contains { !$0.status.isFailure && $0[metric] != nil }
                && current.contains { !$0.status.isFailure && $0[metric] != nil }
        }
        return [measuredOnBoth ?? GateMetricChoice.defaultOrder[0]]
    }

    static func side(_ points: [LaunchPoint], _ metric: Metric) -> GateSide {
        GateSide(
            launches: points.count, failures: points.filter(\.status.isFailure).count,
            values: points.filter { !$0.status.isFailure }.compactMap { $0[metric] }.filter(\.isFinite))
    }

    static func entry(
        pair: DeviceMatching.Pair, kind: LaunchKind, metric: Metric, baseline: GateSide, current: GateSide,
        settings: GateSettings
    ) -> GateEntry {
        let test = MannWhitneyU.test(baseline.values, current.values)
        let shift = HodgesLehmannShift(baseline: baseline.values, current: current.values, level: 1 - settings.alpha)
        let needed = LaunchesNeeded.estimate(
            baseline: baseline.values, current: current.values, thresholdPercent: settings.thresholdPercent,
            alpha: settings.alpha, minimum: settings.minimumLaunches)
        var entry = GateEntry(
            baselineDevice: pair.baseline, currentDevice: pair.current, matchedBy: pair.basis, kind: kind,
            metric: metric, baseline: baseline, current: current, test: test, shift: shift, verdict: .unchanged,
            reason: "", launchesNeeded: needed)
        // A baseline too small to judge stays so however many launches the run adds: the fixed gate's reason
        // says so, where the sequential design would only say "still open".
        if let design = settings.sequential, failureReason(entry) == nil,
            baseline.values.count >= settings.minimumLaunches
        {
            judgeSequentially(&entry, design: design, settings: settings)
        } else {
            (entry.verdict, entry.reason, entry.moreLaunchesWouldTell) = judge(entry, settings: settings)
        }
        entry.nameWhatItCouldSee(settings: settings)
        return entry
    }

    /// What changed between the baseline's device and the current one it is compared with (a UDID match can
    /// hide another model or iOS version: emulated labs reuse UDIDs, and phones get updated).
    static func changes(_ pair: DeviceMatching.Pair) -> [String] {
        var changes: [String] = []
        if pair.baseline.productType != pair.current.productType {
            changes.append("model \(pair.baseline.productType) → \(pair.current.productType)")
        }
        if pair.baseline.osVersion != pair.current.osVersion {
            changes.append("iOS \(pair.baseline.osVersion) → \(pair.current.osVersion)")
        }
        return changes
    }

    /// The source with the most launches in `counts` (ties: the first by name); `nil` when empty.
    static func premainSource(counts: [PremainSource: Int]) -> PremainSource? {
        counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key.rawValue > $1.key.rawValue) }?.key
    }

    /// Why a side has too many failed launches to judge, or `nil`.
    static func failureReason(_ entry: GateEntry) -> String? {
        for (name, side) in [("baseline", entry.baseline), ("current run", entry.current)]
        where side.failures * 2 > side.launches {
            return "Too many launches failed to judge: \(side.failures) of \(side.launches) in the \(name); "
                + "fix the failures (see the run's logs), then measure again."
        }
        return nil
    }

    /// `--until-verdict`: the sequential design's decision at the current run's last look; open or at the
    /// cap is insufficient data.
    static func judgeSequentially(_ entry: inout GateEntry, design: SequentialVerdict, settings: GateSettings) {
        let decision = design.decide(
            baseline: entry.baseline.values, current: entry.current.values, thresholdPercent: settings.thresholdPercent,
            alpha: settings.alpha)
        entry.sequential = decision
        entry.reason = SequentialVerdict.describe(decision, thresholdPercent: settings.thresholdPercent)
        if case .settled(let verdict, _, _, _, _, _) = decision {
            entry.verdict = verdict
        } else {
            entry.verdict = .insufficientData
        }
    }

    /// The fixed-sample verdict, its reason, and whether more launches would tell (see `moreLaunchesWouldTell`).
    static func judge(_ entry: GateEntry, settings: GateSettings) -> (GateVerdict, String, Bool) {
        let minimum = settings.minimumLaunches
        let needed = max(minimum, entry.launchesNeeded ?? minimum)
        if let reason = failureReason(entry) { return (.insufficientData, reason, false) }
        for (name, side) in [("baseline", entry.baseline), ("current run", entry.current)]
        where side.values.count < minimum {
            return (
                .insufficientData,
                "Only \(side.values.count) measured launches in the \(name) (\(side.launches) made); "
                    + "about \(needed) per side are needed to see a \(DecimalText.fixed(settings.thresholdPercent, maxFractionDigits: 2)) % change "
                    + "(--iterations \(needed)).", false
            )
        }
        guard let test = entry.test, let shift = entry.shiftPercent else {
            return (.insufficientData, "No values to compare.", false)
        }
        // A test that can never reject at these sizes shows nothing: its "not significant" is no pass.
        let (n1, n2) = (entry.baseline.values.count, entry.current.values.count)
        let smallestP = MannWhitneyU.smallestPValue(n1, n2)
        if smallestP >= settings.alpha {
            return (
                .insufficientData,
                "\(n1) baseline and \(n2) current launches can never differ significantly: the rank test's "
                    + "smallest p at these sizes is \(DecimalText.fixed(smallestP, maxFractionDigits: 3)), not below "
                    + "α = \(DecimalText.fixed(settings.alpha, maxFractionDigits: 3)); measure more launches per side.",
                false
            )
        }
        let threshold = settings.thresholdPercent
        let p = GateText.pPhrase(test.pValue)
        let shiftText = Self.signedPercent(shift)
        let significant = test.pValue < settings.alpha
        if significant && shift > threshold {
            return (.regression, "Slower by \(shiftText) (threshold \(Self.plainPercent(threshold))), \(p).", false)
        }
        if significant && shift < -threshold {
            return (
                .improvement,
                "Faster by \(Self.plainPercent(-shift)) (threshold \(Self.plainPercent(threshold))), \(p).", false
            )
        }
        if !significant {
            var text = "No significant change (\(shiftText), \(p))."
            var open = false
            if let low = entry.shiftLowPercent, let high = entry.shiftHighPercent, high > threshold || low < -threshold,
                let n = entry.launchesNeeded, n > min(entry.baseline.values.count, entry.current.values.count)
            {
                text +=
                    " The interval still reaches past ±\(Self.plainPercent(threshold)); about \(n) launches per side would tell."
                open = true
            }
            return (.unchanged, text, open)
        }
        return (
            .unchanged,
            "Change of \(shiftText) is significant (\(p)) but within the threshold of ±\(Self.plainPercent(threshold)).",
            false
        )
    }

    static func signedPercent(_ value: Double) -> String {
        (value >= 0 ? "+" : "") + DecimalText.fixed(value, maxFractionDigits: 1) + " %"
    }

    static func plainPercent(_ value: Double) -> String { DecimalText.fixed(value, maxFractionDigits: 2) + " %" }
}
