/// Everything the CI gate found for one run: the baseline comparison, the dylib guard, the
/// reference-app gaps and the adaptive sample sizes — what `compare` and `run --baseline` print.
package struct GateReport: Sendable, Hashable {
    /// Where the two sides were read from, as the user named them.
    package var baselinePath: String?
    /// The current run's folder, as the user named it.
    package var currentPath: String?
    /// `nil` when no baseline was given.
    package var comparison: GateComparison?
    /// An A/B run's verdict (`run NEW --against BASE`): the new build against the base build, pair by pair;
    /// `nil` for any other run.
    package var paired: PairedComparison? = nil
    /// `nil` when the dylib guard is off; empty when it passed.
    package var dylibViolations: [DylibGuard.Violation]?
    /// The app against `--reference-app` per device × kind × metric; empty without one.
    var referenceGaps: [ReferenceGap]
    /// Per device, how many iterations `--target-precision` took (one sentence each).
    var sampleSizes: [String]
    /// What the reading, matching or guard had to say, for people.
    package var notes: [String]

    /// A report; every part is optional, as the gate's options are.
    package init(
        baselinePath: String? = nil, currentPath: String? = nil, comparison: GateComparison? = nil,
        dylibViolations: [DylibGuard.Violation]? = nil, referenceGaps: [ReferenceGap] = [], sampleSizes: [String] = [],
        notes: [String] = []
    ) {
        self.baselinePath = baselinePath
        self.currentPath = currentPath
        self.comparison = comparison
        self.dylibViolations = dylibViolations
        self.referenceGaps = referenceGaps
        self.sampleSizes = sampleSizes
        self.notes = notes
    }

    /// The gate's overall result (the command layer maps it to the process's exit status).
    package enum Outcome: String, Sendable, Hashable, Codable {
        /// No regression and the guard passed (improvements and unchanged metrics pass).
        case passed
        /// A regression, or an image the allow list does not name.
        case failed
        /// Nothing regressed, but some device × kind × metric could not be judged (too many failed
        /// launches, too few launches, no matching device).
        case undecided
    }

    /// Failed on a regression or a dylib violation, else undecided when something could not be judged, else passed.
    package var outcome: Outcome {
        if let comparison, !comparison.regressions.isEmpty { return .failed }
        if let paired, !paired.regressions.isEmpty { return .failed }
        if let dylibViolations, !dylibViolations.isEmpty { return .failed }
        if let comparison, comparison.entries.isEmpty || !comparison.undecided.isEmpty { return .undecided }
        if let paired, paired.entries.isEmpty || !paired.undecided.isEmpty { return .undecided }
        return .passed
    }

    /// Whether there is anything to show: a comparison, the guard, reference gaps, sample sizes or notes.
    package var isEmpty: Bool {
        comparison == nil && paired == nil && dylibViolations == nil && referenceGaps.isEmpty && sampleSizes.isEmpty
            && notes.isEmpty
    }

    /// Whether a run ends with the gate's exit status: when it compared with a baseline or the guard found an
    /// image. A passed guard, reference gaps and sample sizes only inform; the launches decide.
    var decidesTheRun: Bool {
        comparison != nil || paired != nil || dylibViolations?.isEmpty == false
    }

    /// One line for the end of a CI log: `Gate: FAILED — 1 regression, 1 unlisted dylib`.
    package var headline: String {
        var parts: [String] = []
        if let comparison {
            let r = comparison.regressions.count
            let i = comparison.improvements.count
            let u = comparison.undecided.count
            let unlike = comparison.entries.filter { $0.verdict == .notComparable }.count
            if r > 0 { parts.append(r == 1 ? "1 regression" : "\(r) regressions") }
            if u > unlike { parts.append("\(u - unlike) not judged (insufficient data)") }
            if unlike > 0 { parts.append("\(unlike) not comparable") }
            if i > 0 { parts.append(i == 1 ? "1 improvement" : "\(i) improvements") }
            if comparison.entries.isEmpty { parts.append("no device of the current run matches the baseline") }
            let unchanged = comparison.entries.count - r - i - u
            if unchanged > 0 { parts.append("\(unchanged) unchanged") }
        }
        if let paired {
            let r = paired.regressions.count
            let i = paired.improvements.count
            let u = paired.undecided.count
            if r > 0 { parts.append("NEW slower than BASE in \(r)") }
            if u > 0 { parts.append("\(u) undecided") }
            if i > 0 { parts.append("NEW faster in \(i)") }
            if paired.entries.isEmpty { parts.append("no pairs of the two builds") }
            let unchanged = paired.entries.count - r - i - u
            if unchanged > 0 { parts.append("\(unchanged) unchanged (paired)") }
        }
        if let dylibViolations {
            let images = Set(dylibViolations.map(\.image)).count
            parts.append(
                images == 0 ? "dylib guard passed" : images == 1 ? "1 unlisted dylib" : "\(images) unlisted dylibs")
        }
        let word: String
        switch outcome {
        case .passed: word = "PASSED"
        case .failed: word = "FAILED"
        case .undecided: word = "UNDECIDED"
        }
        return "Gate: \(word)" + (parts.isEmpty ? "" : " — " + parts.joined(separator: ", "))
    }
}
