/// What a device's run keeps of its recorded launches: the counts, whether dyld printed its statistics, the
/// cold launches made, and (only when a stopping rule reads them) each launch's values.
struct LaunchTally: Sendable {
    private(set) var counts = LaunchCounts()
    /// Whether a launch printed dyld's statistics.
    private(set) var printedStatistics = false
    /// Where the launches' first frames came from, each once, in the order first seen.
    private(set) var firstFrameSources: [FirstFrameSource] = []
    /// Iterations that recorded a cold launch (a failed install is its iteration's cold sample).
    private(set) var coldLaunches = 0
    /// What the stopping rules read, without the text (see `valuesOnly`); empty when no rule reads it. A rule
    /// caps the iterations, so the list is bounded; nothing else of a launch is kept once it is on disk.
    private(set) var judged: [Sample] = []
    /// Whether `judged` is kept.
    let keepsValues: Bool
    /// The launches to re-judge once the app shows that it prints its end markers.
    var endMarkers = EndMarkerWatch()

    init(keepsValues: Bool) {
        self.keepsValues = keepsValues
    }

    mutating func keep(_ sample: Sample) {
        counts.count(sample)
        if sample.kind == .cold { coldLaunches += 1 }
        if sample.premainSource == .dyldStatistics { printedStatistics = true }
        if let source = sample.firstFrameSource, !firstFrameSources.contains(source) {
            firstFrameSources.append(source)
        }
        if keepsValues { judged.append(sample.valuesOnly) }
    }

    /// A kept `ok` launch that was re-judged (`corrected` is its new state).
    mutating func rejudged(_ corrected: Sample) {
        counts.recount(corrected, was: .ok)
        if let index = judged.firstIndex(where: { LaunchSlot($0) == LaunchSlot(corrected) }) {
            judged[index] = corrected.valuesOnly
        }
    }
}

/// The `ok` launches that ended on dyld's statistics alone before the run knew that this app prints its
/// `firstFrame`/`done` markers: the first launch that prints them says those most likely hung after pre-main.
struct EndMarkerWatch: Sendable {
    private var endedWithoutMarkers: Set<LaunchSlot> = []

    /// Notes a recorded launch of the main app; returns the launches to re-judge now (empty: none).
    /// - Parameter knewMarkers: whether the run knew before this launch that the app prints its markers.
    mutating func note(_ sample: Sample, printedEndMarker: Bool, knewMarkers: Bool) -> Set<LaunchSlot> {
        guard !knewMarkers else { return [] }
        // A launch whose output was lost could not print its markers: it says nothing of a hang.
        let outputLost = sample.warnings.contains { $0.hasPrefix(LaunchWatcher.outputLostWarning) }
        if sample.status == .ok && !printedEndMarker && !outputLost {
            endedWithoutMarkers.insert(LaunchSlot(sample))
        } else if printedEndMarker && !endedWithoutMarkers.isEmpty {
            defer { endedWithoutMarkers = [] }
            return endedWithoutMarkers
        }
        return []
    }
}

/// One launch's place in a device's run: its iteration and launch index (0 is the cold launch).
struct LaunchSlot: Hashable, Sendable {
    let iteration: Int
    let launchIndex: Int

    init(_ sample: Sample) {
        iteration = sample.iteration
        launchIndex = sample.launchIndex
    }
}

extension Sample {
    /// The sample without what the stopping rules never read (images, initializers, warnings, message, log
    /// path, phases): what a run keeps of a launch once it is on disk.
    var valuesOnly: Sample {
        var copy = self
        copy.bundleImages = []
        copy.initializers = nil
        copy.warnings = []
        copy.message = nil
        copy.logPath = nil
        copy.phases = PhaseTimings()
        return copy
    }
}
