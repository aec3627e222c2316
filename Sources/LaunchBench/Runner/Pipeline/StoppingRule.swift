/// What a stopping rule is shown of a device's run, as it happens.
enum PipelineEvent: Sendable {
    /// The prepare step ended: `nil` when the launch may start, else its recorded failure.
    case prepared(failure: Sample?)
    /// A launch of the main app (in an A/B run, of either build: `Sample.build` says which) was recorded.
    case launched(Sample)
    /// A recorded launch was judged again (it ended on dyld's statistics alone before the app showed it prints
    /// its end markers); the sample is its new state.
    case rejudged(Sample)
    /// Iteration `n`'s launches (and the reference app's) were made.
    case iterationEnded(Int)
}

/// A rule that may end a device's launches: it sees every event of the run, in order, with what the run kept
/// so far, and says when to stop.
protocol StoppingRule: Sendable {
    /// The stop `event` calls for, or `nil` to go on.
    mutating func decide(after event: PipelineEvent, tally: LaunchTally) -> DeviceStop?
}

/// How and why a device's launches ended: its outcome, its note in run.json, and the decision as data.
struct DeviceStop: Sendable {
    var outcome: RunManifest.DeviceOutcome.Outcome
    var note: String?
    var decision: StopDecision

    /// A stop by `rule` after what `tally` kept, said in `note` (which is also the decision's reason).
    init(_ outcome: RunManifest.DeviceOutcome.Outcome, _ rule: StopDecision.Rule, note: String?, tally: LaunchTally) {
        self.init(
            outcome: outcome, note: note,
            decision: StopDecision(rule: rule, iterations: tally.coldLaunches, reason: note))
    }

    init(outcome: RunManifest.DeviceOutcome.Outcome, note: String?, decision: StopDecision) {
        self.outcome = outcome
        self.note = note
        self.decision = decision
    }

    /// The run was cancelled.
    static func interrupted(_ tally: LaunchTally) -> DeviceStop {
        DeviceStop(.interrupted, .interrupted, note: nil, tally: tally)
    }

    /// The device disappeared; `message` says how.
    static func lost(_ message: String?, _ tally: LaunchTally) -> DeviceStop {
        DeviceStop(.lost, .deviceLost, note: message, tally: tally)
    }
}

/// The plan's stopping rules, asked in order; the first that stops ends the device's launches.
struct StoppingRules: Sendable {
    private var rules: [any StoppingRule]

    /// The rules `plan` asks for: a lost device, too many failed installs or refused launches in a row always;
    /// `--target-precision` and `--until-verdict` (against a baseline, or an A/B run's pairs) when given.
    init(_ plan: RunPlan) {
        var rules: [any StoppingRule] = [
            DeviceLostRule(), InARowLimit.failedInstalls, InARowLimit.refusedLaunches,
        ]
        if let stopping = plan.stopping { rules.append(PrecisionRule(rule: stopping)) }
        if let untilVerdict = plan.untilVerdict { rules.append(VerdictRule(rule: untilVerdict)) }
        if let paired = plan.pairedVerdict { rules.append(PairedVerdictRule(rule: paired)) }
        self.rules = rules
    }

    /// Whether any rule reads the launches' values (then the run keeps them, see `LaunchTally.judged`).
    static func readValues(_ plan: RunPlan) -> Bool { plan.stopping != nil || plan.untilVerdict != nil }

    mutating func decide(after event: PipelineEvent, tally: LaunchTally) -> DeviceStop? {
        for index in rules.indices {
            if let stop = rules[index].decide(after: event, tally: tally) { return stop }
        }
        return nil
    }
}
