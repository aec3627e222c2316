/// `run --baseline B --until-verdict`: after every iteration, a device's launches so far are judged
/// against the baseline by the gate itself (``GateComparison`` with a ``SequentialVerdict`` design), and
/// the device stops as soon as the verdict of every launch kind is settled, or at the design's cap.
/// The gate at the end of the run judges the same launches the same way, so what stopped a device is
/// what the report says.
public struct VerdictStopping: Sendable {
    /// The baseline's launches (every device; each device of the run is matched as the gate matches it).
    public var baseline: [Sample]
    /// The gate's settings, with `sequential` set.
    public var settings: GateSettings

    /// A rule for `baseline` under `settings` and `design` (which replaces `settings.sequential`).
    public init(baseline: [Sample], settings: GateSettings, design: SequentialVerdict) {
        self.baseline = baseline
        var settings = settings
        settings.sequential = design
        self.settings = settings
    }

    /// The design the rule decides with.
    public var design: SequentialVerdict { settings.sequential ?? SequentialVerdict() }

    /// Why the device whose launches so far are `samples` may stop, or `nil` to launch again.
    public func stopReason(samples: [Sample]) -> String? {
        let comparison = GateComparison(baseline: baseline, current: samples, settings: settings)
        let iterations = Set(samples.filter { $0.kind == .cold }.map(\.iteration)).count
        guard !comparison.entries.isEmpty else {
            // No counterpart in the baseline: nothing can settle, so do not hold the phone to the cap.
            guard iterations >= design.minimumLaunches else { return nil }
            return "no device of the baseline matches it, so no verdict can be reached; stopped after \(iterations) "
                + "iterations"
        }
        guard comparison.entries.allSatisfy({ $0.sequential?.isFinal == true }) else { return nil }
        return "verdict settled after \(iterations) iterations: "
            + comparison.entries.map { "\($0.kind.rawValue) \($0.verdict.rawValue)" }.joined(separator: ", ")
    }
}
