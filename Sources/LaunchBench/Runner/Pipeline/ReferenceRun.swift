/// `--reference-app`: the reference app's launches on a device, interleaved with the main app's iteration by
/// iteration through a pipeline of its own (its samples go to `DIR/reference/`, it reports nothing, and no
/// stopping rule reads it: the main app's rules end both).
struct ReferenceRun: Sendable {
    var pipeline: LaunchPipeline

    /// One iteration: make the app cold (a reinstall, once only with `--cold none`), launch it cold and warm.
    /// Returns whether the device was lost, or `nil` when cancelled. Failures are recorded like the main app's.
    mutating func iteration(_ iteration: Int) async throws -> Bool? {
        var phases = PhaseTimings()
        if pipeline.plan.coldMode != .none || iteration == 1 {
            switch try await pipeline.reinstall(iteration: iteration) {
            case .cancelled: return nil
            case .failed(let failure): return failure.status == .deviceLost
            case .ready(let timings): phases = timings
            }
        }
        for index in 0...max(0, pipeline.plan.warmLaunches) {
            if Task.isCancelled { return nil }
            let attempt = LaunchAttempt(iteration: iteration, index: index, phases: phases)
            guard case .recorded(let sample, _) = try await pipeline.launch(attempt) else { return nil }
            if sample.status == .deviceLost { return true }
        }
        return false
    }
}
