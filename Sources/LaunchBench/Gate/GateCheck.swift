import Foundation

/// The gate over a finished run, one way for `compare` and `run` alike: the baseline comparison (when there
/// is a baseline), the dylib guard (when there is an allow list) on the run's embedded frameworks and launches,
/// the reference-app gaps (when the run kept a reference app's launches) and the adaptive sample sizes (when
/// run.json recorded `--target-precision`).
package struct GateCheck: Sendable {
    /// What the run is compared with; `nil`: no comparison, the other checks still apply.
    package var baseline: GateInput?
    /// Threshold, significance, metrics.
    package var settings: GateSettings
    /// The dylib guard's allow list; `nil`: the guard is off.
    package var allowed: AllowedDylibs?
    /// The app's main executable, when known (a run knows its bundle; a results folder alone does not, and
    /// the guard then recognises it by its shape).
    package var executable: String?

    /// A check; only `settings` is always needed.
    package init(
        baseline: GateInput? = nil, settings: GateSettings, allowed: AllowedDylibs? = nil, executable: String? = nil
    ) {
        self.baseline = baseline
        self.settings = settings
        self.allowed = allowed
        self.executable = executable
    }

    /// The report over `current`.
    /// - Throws: `GateError.noLaunches` when there is a baseline and `current` holds no launches.
    package func report(current: GateInput) throws(GateError) -> GateReport {
        var report = GateReport(
            referenceGaps: ReferenceGap.gaps(
                app: current.launches, reference: current.referenceLaunches, metrics: settings.metrics),
            sampleSizes: Self.sampleSizes(current), notes: current.referenceProblem.map { [$0] } ?? [])
        if let baseline {
            guard current.launches.count > 0 else {
                throw .noLaunches(.current, path: current.path, folder: current.folder.url)
            }
            report.baselinePath = baseline.path
            report.currentPath = current.path
            report.comparison = comparison(baseline, current, notes: &report.notes)
        }
        if let base = current.baseBuild {
            // An A/B folder: the new build against the base build, pair by pair.
            report.paired = PairedComparison(
                new: current.launches, base: base.launches, manifest: current.folder.manifest, settings: settings)
            report.currentPath = current.path
        }
        if let allowed {
            let guardrail = DylibGuard(allowed: allowed, executable: executable)
            report.dylibViolations =
                guardrail.check(embeddedFrameworks: current.folder.manifest?.app?.frameworks ?? [])
                + guardrail.check(launches: current.launches)
            if let base = current.baseBuild {
                // The guard covers both builds: an unlisted image is unlisted whichever build loaded it.
                report.dylibViolations? +=
                    guardrail.check(embeddedFrameworks: base.folder.manifest?.app?.frameworks ?? [])
                    .map { Self.inBase($0) } + guardrail.check(launches: base.launches).map { Self.inBase($0) }
            }
        }
        if let baseline { report.notes += Self.disturbedNotes(baseline, side: "baseline") }
        report.notes += Self.disturbedNotes(current, side: "current")
        return report
    }

    /// A violation of the base build, its image named as such.
    private static func inBase(_ violation: DylibGuard.Violation) -> DylibGuard.Violation {
        var violation = violation
        violation.image += " (BASE build)"
        return violation
    }

    private func comparison(_ baseline: GateInput, _ current: GateInput, notes: inout [String]) -> GateComparison {
        var comparison = GateComparison(baseline: baseline.launches, current: current.launches, settings: settings)
        comparison.markConditionChanges(baseline: baseline.folder.manifest, current: current.folder.manifest)
        if comparison.markAppChange(baseline: baseline.appBundleID, current: current.appBundleID),
            let a = baseline.appBundleID, let b = current.appBundleID
        {
            notes.append(
                settings.compareAnyway
                    ? "The baseline measured \(a), the current run \(b): compared anyway (--compare-anyway)."
                    : "The baseline measured \(a), the current run \(b): not comparable (pass --compare-anyway to "
                        + "judge them all the same).")
        }
        notes +=
            baseline.folder.notes.map { "baseline \(baseline.path): \($0)" }
            + current.folder.notes.map { "current \(current.path): \($0)" }
        return comparison
    }

    /// Per device, how many iterations the adaptive rule recorded in run.json took, in words; empty when the run
    /// had no `--target-precision`. The device's recorded stop decision says it; a run.json of an older tool,
    /// which has none, gets the rule worked out again from the device's cold launches.
    static func sampleSizes(_ current: GateInput) -> [String] {
        guard let manifest = current.folder.manifest, let options = manifest.options,
            let target = options.targetPrecisionPercent
        else { return [] }
        let rule = AdaptiveStopping(targetPrecisionPercent: target, maxIterations: options.maxIterations ?? 50)
        return current.launches.devices.map { device in
            let cold = current.launches.launches(device.udid, .cold)?.points ?? []
            let iterations = Set(cold.map(\.iteration)).count
            let decision =
                if let stop = manifest.outcome(of: device.udid)?.stop {
                    stop.precisionDecision ?? .continue
                } else {
                    rule.decide(iterations: iterations, coldValues: AdaptiveStopping.coldValues(points: cold))
                }
            let text: String
            if case .continue = decision {
                text = "\(iterations) iterations (stopped early: the device was lost, stopped or the run interrupted)"
            } else {
                text = AdaptiveStopping.describe(decision, target: rule.targetPrecisionPercent)
            }
            return "\(device.name) (\(device.udid)): \(text)"
        }
    }
}
