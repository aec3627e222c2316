/// `run --baseline B --until-verdict`: after every iteration, a device's launches so far are judged
/// against the baseline by the gate itself (``GateComparison`` with a ``SequentialVerdict`` design), and
/// the device stops as soon as the verdict of every launch kind is settled, or at the design's cap.
/// The gate at the end of the run judges the same launches the same way, so what stopped a device is
/// what the report says. When no verdict can come whatever the device measures (no baseline device matches
/// it, the baseline has too few measured launches or too much noise to show a change of the threshold's
/// size, or the two runs are not comparable) it stops after its first iteration, saying why, instead of
/// launching up to the cap for an answer known from the start.
package struct VerdictStopping: Sendable {
    /// The baseline's launches (every device; each device of the run is matched as the gate matches it).
    package var baseline: GateLaunches
    /// The gate's settings, with `sequential` set.
    package var settings: GateSettings
    /// The app the baseline measured; another app in the run is not comparable (as in ``GateCheck``).
    package var baselineApp: String?

    /// A rule for `baseline` under `settings` and `design` (which replaces `settings.sequential`).
    /// - Parameter baselineApp: the baseline's app (``GateInput/appBundleID``); `nil` when unknown.
    package init(baseline: [Sample], settings: GateSettings, design: SequentialVerdict, baselineApp: String? = nil) {
        self.init(
            baseline: GateLaunches(samples: baseline), settings: settings, design: design, baselineApp: baselineApp)
    }

    /// A rule for launches already kept (``GateInput/launches``), as `init(baseline:settings:design:baselineApp:)`.
    package init(
        baseline: GateLaunches, settings: GateSettings, design: SequentialVerdict, baselineApp: String? = nil
    ) {
        self.baseline = baseline
        var settings = settings
        settings.sequential = design
        self.settings = settings
        self.baselineApp = baselineApp
    }

    /// The design the rule decides with.
    package var design: SequentialVerdict { settings.sequential ?? SequentialVerdict() }

    /// Why the device whose launches so far are `samples` may stop, or `nil` to launch again.
    package func stopReason(samples: [Sample]) -> String? {
        var comparison = GateComparison(baseline: baseline, current: GateLaunches(samples: samples), settings: settings)
        comparison.markAppChange(baseline: baselineApp, current: samples.first?.appBundleID)
        let iterations = Set(samples.filter { $0.kind == .cold }.map(\.iteration)).count
        let after = "stopped after \(iterations) iteration\(iterations == 1 ? "" : "s")"
        guard !comparison.entries.isEmpty else {
            // A device's identity does not change between its launches: the first iteration tells.
            guard iterations >= 1 else { return nil }
            return "no device of the baseline matches it, so no verdict can be reached; \(after)"
        }
        if let why = comparison.entries.lazy.compactMap(noVerdictPossible).first {
            return "no verdict can be reached: \(why); \(after)"
        }
        guard comparison.entries.allSatisfy({ $0.sequential?.isFinal == true }) else { return nil }
        let verdicts = comparison.entries.map { "\($0.kind.rawValue) \($0.verdict.rawValue)" }.joined(separator: ", ")
        guard
            comparison.entries.allSatisfy({
                if case .settled? = $0.sequential { return true } else { return false }
            })
        else {
            return "the cap of \(design.maxLaunches) iterations (--max-iterations) came before the verdict "
                + "settled: \(verdicts)"
        }
        return "verdict settled after \(iterations) iterations: \(verdicts)"
    }

    /// Why `entry` cannot get a verdict however many launches the current run adds; `nil` when it can.
    private func noVerdictPossible(_ entry: GateEntry) -> String? {
        if entry.verdict == .notComparable {
            return "\(entry.changes.joined(separator: ", ")) between the baseline and this run makes them not "
                + "comparable (pass --compare-anyway to judge them all the same, or measure a new baseline)"
        }
        let side = entry.baseline
        if side.failures * 2 > side.launches {
            return "\(side.failures) of the baseline's \(side.launches) \(entry.kind.rawValue) launches on this "
                + "device failed (measure a new baseline)"
        }
        if side.values.count < settings.minimumLaunches {
            return "the baseline has \(side.values.count) measured \(entry.kind.rawValue) launch"
                + "\(side.values.count == 1 ? "" : "es") of \(entry.metric.rawValue) on this device and the gate "
                + "needs \(settings.minimumLaunches) (measure a new baseline with --iterations "
                + "\(max(settings.minimumLaunches, 10)) or more)"
        }
        // Launching to the cap could not settle it: the baseline's own noise bounds what any run can show.
        if let blind = entry.baselineBlindness(settings: settings) { return blind }
        return nil
    }
}
