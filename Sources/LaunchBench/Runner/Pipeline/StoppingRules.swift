/// Stops a device that disappeared, during its preparation or a launch.
struct DeviceLostRule: StoppingRule {
    func decide(after event: PipelineEvent, tally: LaunchTally) -> DeviceStop? {
        switch event {
        case .prepared(let failure?) where failure.status == .deviceLost: .lost(failure.message, tally)
        case .launched(let sample) where sample.status == .deviceLost: .lost(sample.message, tally)
        default: nil
        }
    }
}

/// Stops a device after `limit` failed installs, or refused launches, in a row: signing, a locked device or a
/// full disk do not get better by themselves.
struct InARowLimit: StoppingRule {
    /// Failed installs in a row; a prepare step that succeeds starts the count again.
    static let failedInstalls = InARowLimit(counting: .failedInstalls, wording: "failed installs")
    /// Refused launches in a row; any other launch starts the count again.
    static let refusedLaunches = InARowLimit(counting: .refusedLaunches, wording: "refused launches")
    /// Failures in a row after which the device is given up.
    static let limit = 3

    let counting: StopDecision.Rule
    let wording: String
    private var inARow = 0

    private init(counting: StopDecision.Rule, wording: String) {
        self.counting = counting
        self.wording = wording
    }

    mutating func decide(after event: PipelineEvent, tally: LaunchTally) -> DeviceStop? {
        guard let failure = counted(event) else { return nil }
        inARow += 1
        guard inARow >= Self.limit else { return nil }
        return DeviceStop(
            .stopped, counting, note: "Stopped after \(inARow) \(wording) in a row: \(failure.message ?? "")",
            tally: tally)
    }

    /// The failure `event` adds to the count; `nil` when it adds none (a success starts the count again).
    /// A lost device is `DeviceLostRule`'s, asked first.
    private mutating func counted(_ event: PipelineEvent) -> Sample? {
        switch (counting, event) {
        case (.failedInstalls, .prepared(let failure?)): return failure
        case (.refusedLaunches, .launched(let sample)) where sample.status == .launchRefused: return sample
        case (.failedInstalls, .prepared(nil)), (.refusedLaunches, .launched): inARow = 0
        default: break
        }
        return nil
    }
}

/// `--target-precision`: stops as soon as the cold median is known well enough (Gate/AdaptiveStopping).
struct PrecisionRule: StoppingRule {
    let rule: AdaptiveStopping

    func decide(after event: PipelineEvent, tally: LaunchTally) -> DeviceStop? {
        guard case .iterationEnded(let iteration) = event else { return nil }
        let decision = rule.decide(iterations: iteration, coldValues: AdaptiveStopping.coldValues(tally.judged))
        guard decision != .continue else { return nil }
        let note = AdaptiveStopping.describe(decision, target: rule.targetPrecisionPercent)
        return DeviceStop(
            outcome: .measured, note: note,
            decision: StopDecision(precision: decision, target: rule.targetPrecisionPercent, reason: note))
    }
}

/// `--until-verdict`: stops once the gate's sequential verdict is settled (Gate/VerdictStopping).
struct VerdictRule: StoppingRule {
    let rule: VerdictStopping

    func decide(after event: PipelineEvent, tally: LaunchTally) -> DeviceStop? {
        guard case .iterationEnded = event, let reason = rule.stopReason(samples: tally.judged) else { return nil }
        return DeviceStop(.measured, .untilVerdict, note: reason, tally: tally)
    }
}

/// `run NEW --against BASE --until-verdict`: stops once the pairs of both builds decide (Gate/PairedStopping).
/// It keeps each build's launch points itself (a few numbers each, bounded by the design's cap), since the
/// device's tally holds the new build's launches only.
struct PairedVerdictRule: StoppingRule {
    let rule: PairedStopping
    private var base: [LaunchKind: [LaunchPoint]] = [:]
    private var new: [LaunchKind: [LaunchPoint]] = [:]

    init(rule: PairedStopping) {
        self.rule = rule
    }

    mutating func decide(after event: PipelineEvent, tally: LaunchTally) -> DeviceStop? {
        switch event {
        case .launched(let sample) where sample.build == RunManifest.baseBuild:
            base[sample.kind, default: []].append(LaunchPoint(sample))
            return nil
        case .launched(let sample):
            new[sample.kind, default: []].append(LaunchPoint(sample))
            return nil
        case .rejudged(let sample):
            if sample.build == RunManifest.baseBuild {
                Self.replace(sample, in: &base)
            } else {
                Self.replace(sample, in: &new)
            }
            return nil
        case .iterationEnded(let iteration):
            guard let reason = rule.stopReason(base: base, new: new, iterations: iteration) else { return nil }
            return DeviceStop(.measured, .untilVerdict, note: reason, tally: tally)
        case .prepared:
            return nil
        }
    }

    private static func replace(_ sample: Sample, in points: inout [LaunchKind: [LaunchPoint]]) {
        guard
            let index = points[sample.kind]?.firstIndex(where: {
                $0.iteration == sample.iteration && $0.launchIndex == sample.launchIndex
            })
        else { return }
        points[sample.kind]?[index] = LaunchPoint(sample)
    }
}
