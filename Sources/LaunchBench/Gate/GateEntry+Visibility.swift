/// Every verdict says what it could have seen: the smallest change at its noise and launches, and, when
/// the baseline alone cannot show a change of the threshold's size however many launches the current run
/// makes, that it cannot and what would (a larger baseline, or both builds measured in one run: `--against`).
extension GateEntry {
    /// Fills `smallestVisiblePercent` and `baselineFloorPercent` and adds what they mean to `reason`.
    mutating func nameWhatItCouldSee(settings: GateSettings) {
        let level = 1 - settings.alpha
        smallestVisiblePercent = SmallestVisibleChange.twoRuns(
            baseline: baseline.values, current: current.values, level: level)
        baselineFloorPercent = SmallestVisibleChange.baselineFloor(baseline: baseline.values, level: level)
        if let blind = baselineBlindness(settings: settings) {
            reason += " " + blind.prefix(1).uppercased() + blind.dropFirst() + "."
        } else if let smallest = smallestVisiblePercent {
            reason +=
                " The smallest change these launches could show: ±\(DecimalText.fixed(smallest, maxFractionDigits: 1)) %."
        }
    }

    /// Why this baseline cannot show a change of the threshold's size whatever the current run adds, with
    /// what would, as a clause (`the baseline's 20 cold launches … launches`); `nil` when it can.
    func baselineBlindness(settings: GateSettings) -> String? {
        guard let floor = baselineFloorPercent, floor >= settings.thresholdPercent,
            let spread = SmallestVisibleChange.spreadPercent(baseline.values)
        else { return nil }
        let threshold = DecimalText.fixed(settings.thresholdPercent, maxFractionDigits: 2)
        let needed = SmallestVisibleChange.baselineLaunches(
            below: settings.thresholdPercent, spreadPercent: spread, level: 1 - settings.alpha)
        return "the baseline's \(baseline.values.count) \(kind.rawValue) launches, spread ±"
            + "\(DecimalText.fixed(spread, maxFractionDigits: 1)) %, cannot show a ±\(threshold) % change however "
            + "many launches this run makes (±\(DecimalText.fixed(floor, maxFractionDigits: 1)) % at best, and a "
            + "shift of the whole phone between the two runs comes on top): measure both builds in one run on "
            + "the same phone, paired (`launchbench run NEW.app --against BASE.app`), or a baseline of at least "
            + "\(needed) launches"
    }
}
