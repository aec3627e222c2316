import ArgumentParser
import Foundation
import LaunchBench

/// The CI gate around a run: checks made before anything is launched (baseline present, embedded
/// frameworks allowed), the plan's additions (DYLD_PRINT_LIBRARIES, adaptive stopping), and the checks the
/// core's `RunConclusion` makes when the run ends.
struct RunGate {
    var options: GateOptions
    var app: AppBundle
    var baseline: GateInput?
    var allowed: AllowedDylibs?
    var referenceApp: AppBundle?
    /// `--against`: an A/B run's base build.
    var against: AppBundle?

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
        against = try options.against.map { try Self.baseBuild(at: $0, of: app) }
        allowed = try options.check.allowedDylibs.map { try AllowedDylibs.read(from: URL(fileURLWithPath: $0)) }
        if let allowed {
            let violations = DylibGuard(allowed: allowed, executable: app.executable).check(
                embeddedFrameworks: app.frameworks + (against?.frameworks ?? []))
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
            plan.untilVerdict = VerdictStopping(
                baseline: baseline.launches, settings: options.settings, design: design,
                baselineApp: baseline.appBundleID)
        }
        plan.referenceApp = referenceApp
        if let against {
            plan.against = against
            plan.build = RunManifest.newBuild
            plan.pairedVerdict = options.pairedDesign.map { PairedStopping(design: $0, settings: options.settings) }
        }
        return plan
    }

    /// `--against PATH` read and checked against `app`: the same app (bundle id), else exit 64 naming both. The
    /// same bytes are an A/A run, which the gate's notes say when the run ends (`PairedComparison`, in the report
    /// a CI log and its JUnit and Markdown keep), not here too.
    /// - Throws: `ValidationError` for another app, what reading the bundle throws.
    static func baseBuild(at path: String, of app: AppBundle) throws -> AppBundle {
        let base = try AppBundle(contentsOf: URL(fileURLWithPath: path))
        guard base.bundleID == app.bundleID else {
            throw ValidationError(
                "--against \(path) is another app: its bundle id is \(base.bundleID), the app's (NEW) is "
                    + "\(app.bundleID). Pass the base build of the same app, e.g. the last green main build's.")
        }
        return base
    }

    /// The checks to make when the run ends; `nil` when it asked for none (its launches are then not read back).
    var check: GateCheck? {
        guard
            baseline != nil || allowed != nil || options.stopping != nil || referenceApp != nil
                || options.writeAllowedDylibs != nil || against != nil
        else { return nil }
        return GateCheck(baseline: baseline, settings: options.settings, allowed: allowed, executable: app.executable)
    }

    /// `--write-allowed-dylibs`: the app bundle's images, embedded and loaded by `current`'s launches, as an
    /// allow list.
    /// - Throws: `LaunchBenchError.cannotWrite`.
    func writeAllowedDylibs(_ current: GateInput) throws {
        guard let path = options.writeAllowedDylibs else { return }
        let images = DylibGuard(allowed: AllowedDylibs(entries: []), executable: app.executable)
            .currentImages(embeddedFrameworks: app.frameworks, launches: current.launches)
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
}
