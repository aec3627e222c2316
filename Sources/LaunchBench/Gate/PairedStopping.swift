/// `run NEW --against BASE --until-verdict`: after every iteration, a device's pairs so far are judged by the
/// paired sequential verdict (``PairedSequentialVerdict``), per launch kind, and the device stops as soon as
/// every kind is settled, or at the design's cap. The gate at the end of the run judges the same pairs the
/// same way (``PairedComparison``), so what stopped a device is what the report says.
package struct PairedStopping: Sendable, Hashable {
    /// The looks: from `minimumPairs` to `maxPairs` (`--max-iterations`).
    package var design: PairedSequentialVerdict
    /// The gate's threshold, level and metrics.
    package var settings: GateSettings

    /// A rule for `design` under `settings`.
    package init(design: PairedSequentialVerdict, settings: GateSettings) {
        self.design = design
        self.settings = settings
    }

    /// Why the device whose launches so far are `base` and `new` (per kind) may stop, or `nil` to go on.
    /// - Parameter iterations: the iterations made.
    package func stopReason(base: [LaunchKind: [LaunchPoint]], new: [LaunchKind: [LaunchPoint]], iterations: Int)
        -> String?
    {
        let kinds = LaunchKind.allCases.filter { !(new[$0] ?? []).isEmpty && !(base[$0] ?? []).isEmpty }
        guard !kinds.isEmpty else { return nil }
        var verdicts: [String] = []
        var capped = false
        for kind in kinds {
            let points = (base: base[kind] ?? [], new: new[kind] ?? [])
            for metric in PairedLaunches.metrics(settings.metrics, base: points.base, new: points.new) {
                let pairs = PairedLaunches(metric: metric, base: points.base, new: points.new)
                let decision = design.decide(
                    base: pairs.base, new: pairs.new, thresholdPercent: settings.thresholdPercent,
                    alpha: settings.alpha)
                guard decision.isFinal else { return nil }
                switch decision {
                case .noChangeShown, .tooFewPairs: capped = true
                default: break
                }
                verdicts.append("\(kind.rawValue) \(PairedEntry.verdict(of: decision).rawValue)")
            }
        }
        let list = verdicts.joined(separator: ", ")
        if capped {
            return "the cap of \(design.maxPairs) pairs (--max-iterations) came before the pairs decided: \(list)"
        }
        return "the pairs decided after \(iterations) iteration\(iterations == 1 ? "" : "s"): \(list)"
    }
}
