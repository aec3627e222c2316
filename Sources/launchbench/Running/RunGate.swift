import ArgumentParser
import Foundation
import LaunchBench

/// The CI gate around a run: checks made before anything is launched (baseline present, embedded
/// frameworks allowed), the plan's additions (DYLD_PRINT_LIBRARIES, adaptive stopping), and the
/// verdict when the run ends.
struct RunGate {
    var options: GateOptions
    var app: AppBundle
    var baseline: GateInput?
    var allowed: AllowedDylibs?
    var referenceApp: AppBundle?

    /// Reads the baseline and the allow list and checks the embedded frameworks, before any launch.
    /// - Throws: `GateError` when the baseline is missing or has no launches, `ExitCode(.regression)` when
    ///   the bundle embeds an unlisted framework (after printing the gate's report), file errors otherwise.
    init(options: GateOptions, app: AppBundle) throws {
        self.options = options
        self.app = app
        baseline = try options.baseline.map { try GateInput.load(path: $0, role: .baseline) }
        referenceApp = try options.referenceApp.map { try AppBundle(contentsOf: URL(fileURLWithPath: $0)) }
        if let referenceApp, referenceApp.bundleID == app.bundleID {
            throw ValidationError(
                "--reference-app has the same bundle id as the app (\(app.bundleID)). Pass a different app, e.g. an empty project."
            )
        }
        allowed = try options.check.allowedDylibs.map { try AllowedDylibs.read(from: URL(fileURLWithPath: $0)) }
        if let allowed {
            let violations = DylibGuard(allowed: allowed, executable: app.executable).check(
                embeddedFrameworks: app.frameworks)
            if !violations.isEmpty {
                let report = GateReport(
                    dylibViolations: violations, notes: ["Checked before launching: nothing was measured."])
                try GateOutput.write(
                    report, format: .table, to: nil, junit: options.check.junit, markdown: options.check.markdown)
                throw ExitCode(.regression)
            }
        }
    }

    /// The folder of `--baseline` (its parent when it names a summary.json): never written into by the run.
    var baselineFolder: URL? {
        guard let path = options.baseline else { return nil }
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
        return exists && !isDirectory.boolValue ? url.deletingLastPathComponent() : url
    }

    /// The plan with what the gate needs: images printed at every launch, the stopping rule.
    func adjust(_ plan: RunPlan) -> RunPlan {
        var plan = plan
        if options.check.allowedDylibs != nil || options.writeAllowedDylibs != nil,
            !plan.environment.contains(where: { $0.name == "DYLD_PRINT_LIBRARIES" })
        {
            plan.environment.append(EnvironmentVariable(name: "DYLD_PRINT_LIBRARIES", value: "1"))
        }
        if let stopping = options.stopping { plan.stopping = stopping }
        if let design = options.design, let baseline {
            plan.untilVerdict = VerdictStopping(baseline: baseline.samples, settings: options.settings, design: design)
        }
        plan.referenceApp = referenceApp
        return plan
    }

    /// Judges the finished run; returns the exit status the command should end with, or `nil` when
    /// the gate has nothing to say about it (no baseline, no guard).
    /// - Throws: `GateError` when the run's own results cannot be compared, file errors.
    func evaluate(_ result: RunResult) throws -> ExitStatus? {
        // The run keeps no launches, so the folder is read back once: as the gate's current side when there is
        // a baseline, else only when something needs every launch.
        let current = try baseline.map { _ in try GateInput.load(path: result.folder.path, role: .current) }
        let needsSamples =
            options.writeAllowedDylibs != nil || options.stopping != nil || referenceApp != nil || allowed != nil
        let samples = try current?.samples ?? (needsSamples ? result.samples : [])
        if let path = options.writeAllowedDylibs {
            let images = DylibGuard(allowed: AllowedDylibs(entries: []), executable: app.executable)
                .currentImages(embeddedFrameworks: app.frameworks, samples: samples)
            let text = AllowedDylibs.render(
                images: images,
                comment:
                    "Images of \(app.bundleID) \(app.versionDescription) recorded by `launchbench run --write-allowed-dylibs`."
            )
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw LaunchBenchError.cannotWrite(path: path, reason: error.localizedDescription)
            }
            Terminal.note(
                "Wrote the allowed-dylibs list (\(Set(images.map(AllowedDylibs.itemName)).count) images) to \(path).")
        }
        let sampleSizes = options.stopping.map { Self.sampleSizes(samples, rule: $0) } ?? []
        guard baseline != nil || allowed != nil || !sampleSizes.isEmpty || referenceApp != nil else { return nil }

        var report: GateReport
        if let baseline, let current {
            // The builder `compare` uses (the reference launches came with the current side).
            report = GateReport(
                baseline: baseline, current: current, settings: options.settings, allowed: allowed,
                executable: app.executable)
            report.sampleSizes = sampleSizes
        } else {
            let gaps =
                referenceApp == nil
                ? [] : Self.referenceGaps(samples, folder: result.folder, metrics: options.check.settings.metrics)
            report = GateReport(referenceGaps: gaps, sampleSizes: sampleSizes)
            if let allowed {
                report.dylibViolations = DylibGuard(allowed: allowed, executable: app.executable).check(
                    samples: samples)
            }
        }
        Terminal.output("\n")
        try GateOutput.write(
            report, format: .table, to: nil, junit: options.check.junit, markdown: options.check.markdown)
        if report.comparison == nil && report.dylibViolations?.isEmpty != false { return nil }
        return ExitStatus(report.outcome)
    }

    /// The main app's distance to the reference app, per device and kind (read from DIR/reference/).
    static func referenceGaps(_ samples: [Sample], folder: URL, metrics: [Metric]) -> [ReferenceGap] {
        let url = folder.appendingPathComponent(RunManifest.referenceFolderName)
        guard let reference = try? ResultsFolder.loadSamples(url) else {
            Terminal.note("The reference app's launches could not be read from \(url.path).")
            return []
        }
        return ReferenceGap.gaps(app: samples, reference: reference.samples, metrics: metrics)
    }

    /// Per device: how many iterations the adaptive rule took, in words.
    static func sampleSizes(_ samples: [Sample], rule: AdaptiveStopping) -> [String] {
        GateComparison.devices(of: samples).map { device in
            let cold = samples.filter { $0.deviceUDID == device.udid && $0.kind == .cold }
            let iterations = Set(cold.map(\.iteration)).count
            let decision = rule.decide(iterations: iterations, coldValues: AdaptiveStopping.coldValues(cold))
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
