/// Names what the phone did to a launch behind launchbench's back, and decides whether the launch counts: a
/// cold launch after a prelaunch found a warm file cache and a built closure, and a `BUILD_CLOSURE` on a
/// launch that is not the first after an install means dyld rebuilt its closure (an OS or shared-cache
/// change). Both are kept in samples.jsonl and named in the reports; unless the plan counts them
/// (`--count-prelaunched`), they are set aside, out of the statistics and the gate.
enum LaunchDisturbance {
    /// Labels `sample` with `prelaunch` and whether dyld built its closure this launch.
    static func label(
        _ sample: inout Sample, prelaunch: Prelaunch?, builtClosure: Bool, attempt: LaunchAttempt, plan: RunPlan
    ) {
        if let prelaunch { sample.prelaunch = prelaunch }
        if builtClosure && !isFirstAfterInstall(attempt, plan: plan) { sample.closureRebuilt = true }
        let disturbed = (sample.prelaunch != nil && attempt.kind == .cold) || sample.closureRebuilt
        sample.setAside = disturbed && !plan.countPrelaunched
    }

    /// The cold launch of every iteration when each reinstalls; otherwise the first iteration's, right after
    /// the run's one install.
    static func isFirstAfterInstall(_ attempt: LaunchAttempt, plan: RunPlan) -> Bool {
        attempt.kind == .cold && (plan.coldMode == .reinstall || attempt.iteration == 1)
    }
}
