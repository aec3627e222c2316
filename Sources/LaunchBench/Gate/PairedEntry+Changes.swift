extension PairedEntry {
    /// Records what differs between BASE's and NEW's launches of this metric (one build measured it and the
    /// other did not, or their sources differ: a build whose launches print LaunchProbe's markers against one
    /// whose first frame is UIKit's). Without `compareAnyway` the entry gets no verdict, as a baseline
    /// comparison across such a change gets none (`GateEntry.markChanges`).
    mutating func markUnlike(_ changes: [String], compareAnyway: Bool) {
        guard !changes.isEmpty else { return }
        let what = changes.joined(separator: ", ")
        if compareAnyway {
            reason = "Compared anyway (--compare-anyway) across \(what). " + reason
        } else {
            verdict = .notComparable
            reason =
                "Not comparable: \(what) between BASE and NEW; the two builds' numbers are not read the same way. "
                + "Measure both so that they are (the same LaunchProbe use, a kdebug session for both), or pass "
                + "--compare-anyway to judge the pairs all the same."
        }
    }
}
