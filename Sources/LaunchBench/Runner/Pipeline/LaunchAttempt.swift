/// One launch the pipeline makes: its place in the device's run and the work that came before it.
struct LaunchAttempt: Sendable {
    let iteration: Int
    let kind: LaunchKind
    /// 0 is the iteration's cold launch, 1… its warm launches.
    let index: Int
    /// The timings of the work before this launch (the reinstall, on a cold launch).
    let phases: PhaseTimings

    /// The iteration's launch number `index`: cold at 0, warm after; only the cold one carries `phases`.
    init(iteration: Int, index: Int, phases: PhaseTimings) {
        self.iteration = iteration
        self.kind = index == 0 ? .cold : .warm
        self.index = index
        self.phases = index == 0 ? phases : PhaseTimings()
    }
}

/// How the prepare step (make the next launch cold) ended.
enum Preparation: Sendable {
    /// The launch may start; the timings of what was done.
    case ready(PhaseTimings)
    /// Recorded as the iteration's cold sample (an install that failed, a device that did not come back).
    case failed(Sample)
    case cancelled
}

/// How a launch attempt ended.
enum AttemptOutcome: Sendable {
    /// Recorded, and whether the app printed its `firstFrame`/`done` markers.
    case recorded(Sample, printedEndMarker: Bool)
    case cancelled
}
