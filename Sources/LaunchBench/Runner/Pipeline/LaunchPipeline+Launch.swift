import Foundation

extension LaunchPipeline {
    /// Launches once, watches the output, lets the enrichers add theirs, judges the launch and records the sample
    /// (before the next launch may start).
    mutating func launch(_ attempt: LaunchAttempt) async throws -> AttemptOutcome {
        let startedAt = Date()
        let clock = ContinuousClock()
        let start = clock.now
        let log = try store.makeLaunchLog(
            udid: device.udid, iteration: attempt.iteration, kind: attempt.kind, launchIndex: attempt.index)
        let watcher = LaunchWatcher(
            log: log, timeout: plan.timeout, grace: plan.grace, expectsMarkers: appPrintsEndMarkers)
        let request = LaunchRequest(
            bundleID: plan.app.bundleID, arguments: plan.arguments, environment: plan.launchEnvironment)
        var sample = makeSample(attempt, status: .ok, startedAt: startedAt)
        sample.logPath = log.relativePath
        sample.launcher = launcher.method
        sample.phases = attempt.phases
        for enricher in enrichers { await enricher.willLaunch(attempt) }
        let watching = enrichers.compactMap { $0.watch(attempt, watcher: watcher) }
        defer { for task in watching { task.cancel() } }
        var printedEndMarker = false
        do {
            let termination = try await withTaskCancellationHandler { [launcher, udid = device.udid] in
                try await launcher.launch(request, on: udid, observer: watcher)
            } onCancel: {
                watcher.cancel()
            }
            for task in watching { task.cancel() }
            sample.phases.launchMs = LaunchVerdict.milliseconds(clock.now - start)
            let observation = watcher.finish()
            sample.launchRetries = observation.launchRetries
            printedEndMarker = observation.printedEndMarker
            if printedEndMarker { appPrintsEndMarkers = true }
            if case .endedByHarness(.cancelled) = termination { return .cancelled }
            guard await judge(&sample, of: attempt, termination: termination, observation: observation) else {
                return .cancelled
            }
        } catch {
            let observation = watcher.finish()
            if Task.isCancelled { return .cancelled }
            apply(observation.record, to: &sample)
            sample.launchRetries = observation.launchRetries
            sample.status = (error as? any DriverError)?.failureKind == .deviceLost ? .deviceLost : .launchRefused
            sample.message = DeviceRun.describe(error)
        }
        if let failure = log.failure { sample.warnings.append(failure) }
        markPremainMissing(&sample)
        noteStatistics(of: sample)
        try await store.append(sample)
        reporter.report(.launchFinished(sample))
        return .recorded(sample, printedEndMarker: printedEndMarker)
    }

    /// What the app printed, then what the enrichers add, then the verdict, which comes last: a launch an
    /// enricher measured (kdebug) is a launch, with or without output. Returns `false` when it was cancelled.
    private func judge(
        _ sample: inout Sample, of attempt: LaunchAttempt, termination: LaunchTermination,
        observation: LaunchObservation
    ) async -> Bool {
        apply(observation.record, to: &sample)
        if Metric.preMain.contains(where: { sample[$0] != nil }) { sample.premainSource = .dyldStatistics }
        if sample[.firstFrameMs] != nil { sample.firstFrameSource = .markers }  // kdebug's anchored frame may win
        var measuredByEnricher = false
        for enricher in enrichers {
            if await enricher.enrich(&sample, of: attempt) { measuredByEnricher = true }
        }
        guard
            let verdict = LaunchVerdict(
                termination: termination, observation: observation, timeout: plan.timeout,
                kdebugMeasured: measuredByEnricher)
        else { return false }
        sample.status = verdict.status
        sample.message = verdict.message
        sample.exitStatus = verdict.exitStatus
        sample.signal = verdict.signal
        if let wall = verdict.wallMs { sample.metrics[.wallMs] = wall }
        return true
    }

    private func apply(_ record: LaunchRecord, to sample: inout Sample) {
        sample.metrics = record.metrics
        sample.bundleImages = record.loadedLibraries.compactMap(\.pathInsideAppBundle)
        sample.initializers = record.imageInitializers
        sample.warnings = record.warnings
    }
}
