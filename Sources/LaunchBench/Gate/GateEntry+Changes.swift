extension GateEntry {
    /// Records what differs between the two sides. Without `compareAnyway` the entry gets no verdict: launch
    /// times move by themselves when the model, the iOS version or the app changes, and read differently when
    /// the pre-main source does, so a pass (or a regression) across such a change would say nothing about the
    /// build.
    mutating func markChanges(_ new: [String], compareAnyway: Bool) {
        guard !new.isEmpty else { return }
        changes += new
        let what = changes.joined(separator: ", ")
        if compareAnyway {
            reason = "Compared anyway (--compare-anyway) across \(what). " + reason
        } else {
            verdict = .notComparable
            sequential = nil
            reason =
                "Not comparable: \(what) between the baseline and this run; launch times change by themselves "
                + "across that. Measure a new baseline on this device, or pass --compare-anyway to judge it all the same."
        }
    }
}

extension GateComparison {
    /// Marks every entry with the change of app when the baseline measured another one than the current run
    /// (``GateCheck`` and ``VerdictStopping`` alike). Returns whether the apps differ.
    @discardableResult
    mutating func markAppChange(baseline a: String?, current b: String?) -> Bool {
        guard let a, let b, a != b else { return false }
        for index in entries.indices {
            entries[index].markChanges(["app \(a) → \(b)"], compareAnyway: settings.compareAnyway)
        }
        return true
    }
}
