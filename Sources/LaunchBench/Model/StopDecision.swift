/// Why a device's launches ended, as its run decided it (`stop` of a device outcome in run.json): the gate
/// reads this instead of re-running the rule over the samples, so the report says what the run did.
package struct StopDecision: Sendable, Hashable, Codable {
    /// What ended the device's launches (`rule` in run.json).
    package enum Rule: String, Sendable, Hashable, Codable {
        /// Every planned iteration was made.
        case iterations
        /// `--target-precision`: the cold median was known well enough, or `--max-iterations` came first.
        case targetPrecision = "target-precision"
        /// `--until-verdict`: the gate's sequential verdict settled, could not come, or met its cap.
        case untilVerdict = "until-verdict"
        /// Launches refused too many times in a row.
        case refusedLaunches = "refused-launches"
        /// Installs failed too many times in a row, or the first install failed.
        case failedInstalls = "failed-installs"
        /// The device disappeared.
        case deviceLost = "device-lost"
        /// `--require` did not hold within `--require-wait` (or could not be read) and `--outside-requirements
        /// stop` was asked.
        case conditions
        /// The run was cancelled.
        case interrupted
    }

    /// What ended the launches.
    package var rule: Rule
    /// Iterations that recorded a cold launch on the device when it stopped.
    package var iterations: Int
    /// With `target-precision`: the half width of the cold median's 95 % interval reached, in % of the median
    /// (`nil`: no interval could be computed).
    package var halfWidthPercent: Double?
    /// With `target-precision`: the half width asked for, in % (`--target-precision`).
    package var targetPercent: Double?
    /// With `target-precision`: whether the target was reached (`false`: `--max-iterations` came first).
    package var reachedTarget: Bool?
    /// The decision in words, as the device's note says it (`nil` when the rule has no note of its own).
    package var reason: String?

    /// The adaptive rule's decision as recorded, `nil` when another rule stopped the device.
    package var precisionDecision: AdaptiveStopping.Decision? {
        guard rule == .targetPrecision, let reachedTarget else { return nil }
        if reachedTarget, let halfWidthPercent {
            return .reachedPrecision(iterations: iterations, halfWidthPercent: halfWidthPercent)
        }
        return .reachedLimit(iterations: iterations, halfWidthPercent: halfWidthPercent)
    }
}

extension StopDecision {
    /// Reads the decision field by field (a newer tool's odd value costs that value only); a missing or unknown
    /// rule or iteration count makes the whole decision unreadable, and the gate then works from the samples.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        rule = try c.decode(Rule.self, forKey: .rule)
        iterations = try c.decode(Int.self, forKey: .iterations)
        halfWidthPercent = try? c.decodeIfPresent(Double.self, forKey: .halfWidthPercent)
        targetPercent = try? c.decodeIfPresent(Double.self, forKey: .targetPercent)
        reachedTarget = try? c.decodeIfPresent(Bool.self, forKey: .reachedTarget)
        reason = try? c.decodeIfPresent(String.self, forKey: .reason)
    }
}

extension StopDecision {
    /// The adaptive rule's decision to stop (`reachedPrecision` or `reachedLimit`) as data.
    init(precision decision: AdaptiveStopping.Decision, target: Double, reason: String?) {
        switch decision {
        case .continue:
            self.init(rule: .targetPrecision, iterations: 0, targetPercent: target, reason: reason)
        case .reachedPrecision(let iterations, let width):
            self.init(
                rule: .targetPrecision, iterations: iterations, halfWidthPercent: width, targetPercent: target,
                reachedTarget: true, reason: reason)
        case .reachedLimit(let iterations, let width):
            self.init(
                rule: .targetPrecision, iterations: iterations, halfWidthPercent: width, targetPercent: target,
                reachedTarget: false, reason: reason)
        }
    }
}
