/// `run --require`: the device conditions each iteration's launches should be taken in, how long to wait for
/// them, and what to do when the wait runs out.
package struct ConditionPolicy: Sendable, Hashable {
    /// What to do with an iteration whose conditions still do not hold when the wait runs out.
    package enum Fallback: String, Sendable, Hashable, CaseIterable {
        /// Launch anyway and flag the samples (`conditions.outside_requirements`).
        case record
        /// Stop the device's launches (`stop.rule` `conditions` in run.json).
        case stop
    }

    /// The conditions (`--require`); empty: none required, the conditions are still recorded.
    package var requirements: [ConditionRequirement]
    /// The longest wait before one iteration (`--require-wait`, default 600 s).
    package var waitLimit: Duration
    /// How often the device is asked while waiting (`--require-poll`, default 10 s).
    package var poll: Duration
    /// After the wait ran out (`--outside-requirements`, default `record`).
    package var fallback: Fallback

    /// A policy; without requirements it only records the conditions.
    package init(
        requirements: [ConditionRequirement] = [], waitLimit: Duration = .seconds(600), poll: Duration = .seconds(10),
        fallback: Fallback = .record
    ) {
        self.requirements = requirements
        self.waitLimit = waitLimit
        self.poll = poll
        self.fallback = fallback
    }

    /// The requirements as `--require` would take them again (`charging,battery>=50`).
    package var requirementText: String { requirements.map(\.text).joined(separator: ",") }
}
