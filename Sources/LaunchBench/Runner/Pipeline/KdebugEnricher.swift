/// The device's kernel-trace session, as a step of each launch: marks the trace before the launch, follows it
/// while the launch runs (without LaunchProbe the trace ends the launch, see `LaunchWatcher`), captures the
/// launch's events after it, then either puts kdebug's phases in the sample or, when the phases come from
/// dyld's printed statistics, checks those against it; it stops the session after the device's last launch.
/// The session itself is armed before the run's first launch (`DeviceTrace`), for every device at once, so
/// that a helper starting up does not compete with another device's launches.
struct KdebugEnricher: SampleEnricher {
    let recorder: KdebugLaunchRecorder
    /// The app's main executable, as the trace names its process.
    let executable: String
    /// Whether dyld's printed statistics are checked against the trace rather than replaced by it.
    let crossChecks: Bool
    /// Where the raw trace and the timeline of each launch are written.
    let store: ResultsStore
    /// The plan whose rules label a launch after a prelaunch or with a rebuilt closure (`LaunchDisturbance`);
    /// `nil`: not labelled.
    var labels: RunPlan? = nil
    /// The app's initializer functions by image and offset; nil: initializers are timed by image only.
    var initializerNames: InitializerNames? = nil

    /// How long after a launch ends its kdebug events may still arrive (a phone flushes every 100 ms;
    /// delivery bottoms out near 200 ms).
    static let grace: Duration = .seconds(3)

    func willLaunch(_ attempt: LaunchAttempt) async {
        await recorder.mark(executable: executable)
    }

    /// Tells `watcher` what the trace shows of the running launch as its events arrive (at least every 50 ms),
    /// until the first frame.
    func watch(_ attempt: LaunchAttempt, watcher: LaunchWatcher) -> Task<Void, Never>? {
        Task { [recorder, executable] in
            let clock = ContinuousClock()
            while !Task.isCancelled {
                let seen = await recorder.progress(of: executable)
                watcher.kdebugProgress(
                    KdebugLaunchProgress(reachedMain: seen.reachedMain, firstFrame: seen.firstFrame), at: clock.now)
                if seen.firstFrame { return }
                await recorder.nextChunk(until: clock.now + .milliseconds(50))
            }
        }
    }

    func enrich(_ sample: inout Sample, of attempt: LaunchAttempt) async -> Bool {
        let capture = await recorder.capture(executable: executable, timeout: Self.grace)
        KdebugSampling.keepRaw(capture, of: &sample, store: store)
        if let labels {
            LaunchDisturbance.label(
                &sample, prelaunch: capture.prelaunch, builtClosure: capture.phases?.closureBuildMs != nil,
                attempt: attempt, plan: labels)
        }
        KdebugSampling.applyAfterMain(capture, to: &sample)
        if sample.premainSource == .dyldStatistics && crossChecks {
            let difference = KdebugSampling.crossCheck(capture, of: &sample)
            let skipped = KdebugSampling.untimed(capture, sample).map(\.title)
            await recorder.tally(difference, skipped: skipped)
            return false
        }
        KdebugSampling.apply(capture, to: &sample, store: store, names: initializerNames)
        if let initializerNames, let phases = capture.phases {
            KdebugSampling.nameInitializers(phases, in: &sample, names: initializerNames)
        }
        return capture.phases?.mainMs != nil
    }

    /// This enricher, labelling each launch by `plan`'s rules.
    func labelling(_ plan: RunPlan) -> KdebugEnricher {
        var labelled = self
        labelled.labels = plan
        return labelled
    }

    /// Stops the session; the note says how dyld's statistics compared with kdebug, when they were checked.
    func finish() async -> [String] {
        await recorder.stop()
        return await recorder.crossCheckSummary().map { [$0] } ?? []
    }
}
