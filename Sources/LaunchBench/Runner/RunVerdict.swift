/// How a run ended, for its exit status (the command layer maps each case to a code).
package enum RunVerdict: Sendable, Hashable {
    /// Stopped before every launch was made: by `signal` when one was received, else the run was cancelled.
    case interrupted(signal: Int32?)
    /// The gate judged the run (it compared with a baseline, or the dylib guard found an image).
    case judged(GateReport.Outcome)
    /// Every planned launch on every device was measured.
    case measured
    /// A launch failed or measured nothing (`unmeasured` of `total` measured nothing), or a device was busy,
    /// skipped, unreadable or lost.
    case incomplete(unmeasured: Int, total: Int)

    /// The verdict, in order: an interruption, else the gate's when it decides the run, else the launches'.
    /// - Parameters:
    ///   - unreadableDevices: devices listed but whose details could not be read (not in the run).
    ///   - signal: the signal that stopped the run, if any.
    package init(_ result: RunResult, gate: GateReport?, unreadableDevices: Int, signal: Int32?) {
        if signal != nil || result.interrupted {
            self = .interrupted(signal: signal)
        } else if let gate, gate.decidesTheRun {
            self = .judged(gate.outcome)
        } else if result.counts.failed == 0, result.counts.unmeasured == 0, result.devicesNotFullyMeasured.isEmpty,
            unreadableDevices == 0
        {
            self = .measured
        } else {
            self = .incomplete(unmeasured: result.counts.unmeasured, total: result.counts.total)
        }
    }
}
