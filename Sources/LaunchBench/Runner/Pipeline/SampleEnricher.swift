/// A step that adds what it measures to each launch's sample, beside the app's own output: the kdebug trace
/// today; prelaunch labels, device conditions, page-ins and UIKit phases plug in the same way. The pipeline
/// calls every enricher at the same points of every launch, in order, so none needs a branch of its own.
protocol SampleEnricher: Sendable {
    /// Just before the launch starts.
    func willLaunch(_ attempt: LaunchAttempt) async

    /// While the launch runs: a task that may tell `watcher` the launch is over (cancelled when the launch
    /// ends); `nil` when the enricher has nothing to say while it runs.
    func watch(_ attempt: LaunchAttempt, watcher: LaunchWatcher) -> Task<Void, Never>?

    /// After the launch ended, before its verdict: adds to `sample` (which holds what the app printed).
    /// Returns whether the enricher measured the launch itself, which makes it a launch with or without output.
    func enrich(_ sample: inout Sample, of attempt: LaunchAttempt) async -> Bool

    /// After the device's last launch (or when its run fails): ends whatever the enricher holds, and returns
    /// what the device's notes in run.json should say of its launches as a whole.
    func finish() async -> [String]
}

extension SampleEnricher {
    func willLaunch(_ attempt: LaunchAttempt) async {}
    func watch(_ attempt: LaunchAttempt, watcher: LaunchWatcher) -> Task<Void, Never>? { nil }
    func finish() async -> [String] { [] }
}
