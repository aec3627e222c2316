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
        if sample.prelaunch != nil, attempt.kind == .cold, let version = OSVersion(sample.osVersion),
            version.preloadsAppData
        {
            sample.warnings.append(Self.preloadWarning(version))
        }
    }

    /// Why a prelaunch before a cold launch on iOS 27+ is expected, not a fluke: Apple said at WWDC26 that iOS 27
    /// preloads the data apps need when opened, third-party apps included, which makes a launch after a reinstall
    /// less cold than it looks. Only what kdebug or the device log shows is seen (an exec of the app before the
    /// launch); a preload that only reads the app's files leaves no such trace.
    static func preloadWarning(_ version: OSVersion) -> String {
        "prelaunch: iOS \(version) preloads the data apps need when opened (WWDC26): this cold launch found the app "
            + "launched before it, so it is less cold than it looks (how iOS \(version.major) preloads is "
            + "unverified on a phone)"
    }

    /// The cold launch of every iteration when each reinstalls; otherwise the first iteration's, right after
    /// the run's one install.
    static func isFirstAfterInstall(_ attempt: LaunchAttempt, plan: RunPlan) -> Bool {
        attempt.kind == .cold && (plan.coldMode == .reinstall || attempt.iteration == 1)
    }
}
