/// How a run's launches ended, counted as they are recorded. The samples themselves live in the results
/// folder only (`samples.jsonl`), so a run of any length holds no list of them: its memory stays flat.
package struct LaunchCounts: Sendable, Equatable {
    /// Every launch recorded (failed installs and lost devices included).
    package var total = 0
    /// Launches whose status is a failure (`SampleStatus.isFailure`).
    package var failed = 0
    /// Launches that ended without a measured value (`no-metrics`).
    package var unmeasured = 0

    /// No launches yet.
    package init() {}

    mutating func count(_ sample: Sample) {
        total += 1
        if sample.status.isFailure { failed += 1 }
        if sample.status == .noMetrics { unmeasured += 1 }
    }

    /// A recorded launch whose status changed from `old` to its present one (a re-judged launch).
    mutating func recount(_ sample: Sample, was old: SampleStatus) {
        if old.isFailure { failed -= 1 }
        if old == .noMetrics { unmeasured -= 1 }
        total -= 1
        count(sample)
    }

    static func + (lhs: LaunchCounts, rhs: LaunchCounts) -> LaunchCounts {
        var sum = lhs
        sum.total += rhs.total
        sum.failed += rhs.failed
        sum.unmeasured += rhs.unmeasured
        return sum
    }
}
