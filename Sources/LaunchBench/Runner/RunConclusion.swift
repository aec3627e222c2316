import Foundation

/// What a finished run ends with, for `run` and `demo` alike: the exports written from its folder, the gate's
/// report over it, and the verdict. The folder is read once; the gate's samples come from the same pass.
package struct RunConclusion {
    /// The exports and the statistics they show; `nil` when they could not be written (`exportFailure`).
    package var exports: ResultExports.Outcome?
    /// Why the exports could not be written (samples.jsonl is complete: `launchbench report` retries).
    package var exportFailure: (any Error)?
    /// The run's side of the gate, when a gate check was asked for: its launches, as read.
    package var current: GateInput?
    /// The gate's report, when it has something to show.
    package var report: GateReport?
    /// Why the gate could not judge the run (e.g. no launches to compare with the baseline).
    package var gateFailure: (any Error)?
    /// How the run ended.
    package var verdict: RunVerdict

    /// Writes the exports, then runs `gate` over the run unless it was interrupted.
    /// - Parameters:
    ///   - gate: the checks to make; `nil` when the run has none (its launches are then not kept in memory).
    ///   - unreadableDevices: devices listed but not readable (they make the run incomplete).
    ///   - signal: the signal that stopped the run, if any.
    package static func conclude(
        _ result: RunResult, gate: GateCheck?, unreadableDevices: Int = 0, signal: Int32? = nil
    ) -> RunConclusion {
        let interrupted = signal != nil || result.interrupted
        let keepingSamples = gate != nil && !interrupted
        var conclusion = RunConclusion(verdict: .measured)
        do {
            conclusion.exports = try ResultExports.writeAll(
                resultsFolder: result.folder, keepingSamples: keepingSamples)
        } catch {
            conclusion.exportFailure = error
        }
        if result.manifest.isABRun {
            // An A/B run's BASE build: its own exports in DIR/base/ (`report DIR` rewrites them again).
            do {
                _ = try ResultExports.writeAll(
                    resultsFolder: result.folder.appendingPathComponent(RunManifest.baseFolderName))
            } catch {
                if conclusion.exportFailure == nil { conclusion.exportFailure = error }
            }
        }
        if let gate, keepingSamples {
            do {
                let (folder, samples) =
                    try conclusion.exports.map { ($0.folder, $0.samples) } ?? ResultsFolder.loadSamples(result.folder)
                let current = GateInput(
                    path: result.folder.path, folder: folder, samples: result.inDeviceOrder(samples))
                conclusion.current = current
                let report = try gate.report(current: current)
                conclusion.report = report.isEmpty ? nil : report
            } catch {
                conclusion.gateFailure = error
            }
            if let report = conclusion.report, report.comparison != nil, let exports = conclusion.exports {
                // report.html was written before the gate could judge (its launches come from the same pass):
                // again, now with the section "Against the baseline". Failing leaves the first one, said in the
                // gate's notes (printed with its report).
                do {
                    try ResultExports.writeReportHTML(exports.folder, summary: exports.summary, gate: report)
                } catch {
                    conclusion.report?.notes.append(
                        "report.html has no section against the baseline: \(error.localizedDescription)")
                }
            }
        }
        conclusion.verdict = RunVerdict(
            result, gate: conclusion.report, unreadableDevices: unreadableDevices, signal: signal)
        return conclusion
    }
}
