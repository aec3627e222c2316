import Foundation

/// Runs the plan's launches on one device, in order, and records each as a sample.
///
/// Launch failures become samples and the loop goes on; only a lost device, repeated refusals or
/// cancellation end it early. Only a results-store failure is thrown (the run cannot keep results).
struct DeviceRun: Sendable {
    let driver: any DeviceDriver
    let device: DeviceInfo
    let plan: RunPlan
    let runID: String
    let store: ResultsStore
    let reporter: any RunReporter
    /// Where the reference app's launches are recorded (`--reference-app`), `nil` without one.
    var referenceStore: ResultsStore? = nil
    /// Whether this app printed its end markers on this device before (see `LaunchWatcher`). The run is a
    /// value: `run()` is mutating, and the reference app's run is kept across iterations as a value too.
    private(set) var appPrintsEndMarkers = false
    /// The device's kernel-trace session when its pre-main phases come from kdebug.
    var kdebug: KdebugLaunchRecorder? = nil
    /// How long after a launch ends its kdebug events may still arrive (a phone flushes every 100 ms;
    /// delivery bottoms out near 200 ms).
    static let kdebugGrace: Duration = .seconds(3)

    /// Refused launches (or failed installs) in a row after which the device is given up: signing,
    /// a locked device or a full disk do not get better by themselves.
    static let refusalLimit = 3

    struct Result: Sendable {
        var outcome: RunManifest.DeviceOutcome.Outcome
        var note: String?
        /// How its launches ended (the samples are in the results folder only).
        var counts: LaunchCounts
        /// Whether a launch printed dyld's statistics.
        var printedStatistics: Bool
        /// Notes from before the device's loop (where its pre-main phases come from).
        var notes: [String] = []
        /// Where its pre-main phases came from.
        var premainSource: PremainSource?
    }

    private enum Step {
        case recorded(Sample)
        case cancelled
    }

    /// A launch of the main app and whether it printed `firstFrame`/`done`.
    private enum LaunchStep {
        case recorded(Sample, printedEndMarker: Bool)
        case cancelled
    }

    mutating func run() async throws -> Result {
        reporter.report(.deviceStarted(device, iterations: plan.iterationLimit))
        var counts = LaunchCounts()
        var printedStatistics = false
        // What the stopping rules read, without the text (see `valuesOnly`); no rule, no list. A rule caps the
        // iterations, so the list is bounded; nothing else of a launch is kept once it is on disk.
        var judged: [Sample] = []
        func keep(_ sample: Sample) {
            counts.count(sample)
            if sample.premainSource == .dyldStatistics { printedStatistics = true }
            if plan.stopping != nil || plan.untilVerdict != nil { judged.append(sample.valuesOnly) }
        }
        func finish(_ outcome: RunManifest.DeviceOutcome.Outcome, _ note: String? = nil) -> Result {
            reporter.report(.deviceFinished(udid: device.udid, outcome: outcome, message: note))
            return Result(outcome: outcome, note: note, counts: counts, printedStatistics: printedStatistics)
        }

        if plan.coldMode != .reinstall {
            reporter.report(.preparing(udid: device.udid, iteration: 1, step: "installing"))
            var phases = PhaseTimings()
            switch try await reinstall(iteration: 1, phases: &phases) {
            case .cancelled: return finish(.interrupted)
            case .recorded(let failure)?:
                keep(failure)
                return failure.status == .deviceLost
                    ? finish(.lost, failure.message)
                    : finish(.stopped, "The app could not be installed: \(failure.message ?? "")")
            case nil: break
            }
        }

        var reference = referenceRun()
        var refusalsInARow = 0
        var installFailuresInARow = 0
        var stoppedNote: String?
        // `ok` launches that ended on dyld's statistics alone before the run knew this app prints its end markers.
        var endedWithoutMarkers: Set<LaunchSlot> = []
        for iteration in 1...max(1, plan.iterationLimit) {
            if Task.isCancelled { return finish(.interrupted) }
            var phases = PhaseTimings()
            switch try await prepareColdLaunch(iteration: iteration, phases: &phases) {
            case .cancelled: return finish(.interrupted)
            case .recorded(let failure)?:
                keep(failure)
                if failure.status == .deviceLost { return finish(.lost, failure.message) }
                installFailuresInARow += 1
                if installFailuresInARow >= Self.refusalLimit {
                    return finish(
                        .stopped,
                        "Stopped after \(installFailuresInARow) failed installs in a row: \(failure.message ?? "")")
                }
                continue  // install failed: this iteration's launches are skipped
            case nil: installFailuresInARow = 0
            }
            for launchIndex in 0...max(0, plan.warmLaunches) {
                if Task.isCancelled { return finish(.interrupted) }
                let kind: LaunchKind = launchIndex == 0 ? .cold : .warm
                let knewMarkers = appPrintsEndMarkers
                guard
                    case .recorded(let sample, let printedEndMarker) = try await launchMain(
                        iteration: iteration, kind: kind, index: launchIndex,
                        phases: launchIndex == 0 ? phases : PhaseTimings())
                else { return finish(.interrupted) }
                keep(sample)
                if !knewMarkers && sample.status == .ok && !printedEndMarker {
                    endedWithoutMarkers.insert(LaunchSlot(sample))
                } else if !knewMarkers && printedEndMarker && !endedWithoutMarkers.isEmpty {
                    for corrected in try await rejudge(endedWithoutMarkers) {
                        counts.recount(corrected, was: .ok)
                        if let index = judged.firstIndex(where: { LaunchSlot($0) == LaunchSlot(corrected) }) {
                            judged[index] = corrected.valuesOnly
                        }
                    }
                    endedWithoutMarkers = []
                }
                switch sample.status {
                case .deviceLost:
                    return finish(.lost, sample.message)
                case .launchRefused:
                    refusalsInARow += 1
                    if refusalsInARow >= Self.refusalLimit {
                        return finish(
                            .stopped,
                            "Stopped after \(refusalsInARow) refused launches in a row: \(sample.message ?? "")")
                    }
                default:
                    refusalsInARow = 0
                }
            }
            // --reference-app: the reference app's launches of this iteration, interleaved with the main app's.
            if reference != nil {
                guard let lost = try await reference?.referenceIteration(iteration) else { return finish(.interrupted) }
                if lost { return finish(.lost, "The device disappeared during the reference app's launches.") }
            }
            // --target-precision: stop as soon as the cold median is known well enough (Gate/AdaptiveStopping).
            if let stopping = plan.stopping {
                let decision = stopping.decide(iterations: iteration, coldValues: AdaptiveStopping.coldValues(judged))
                if decision != .continue {
                    stoppedNote = AdaptiveStopping.describe(decision, target: stopping.targetPrecisionPercent)
                    break
                }
            }
            // --until-verdict: stop once the gate's sequential verdict is settled (Gate/VerdictStopping).
            if let rule = plan.untilVerdict, let reason = rule.stopReason(samples: judged) {
                stoppedNote = reason
                break
            }
        }
        return finish(.measured, stoppedNote)
    }

    /// The launches that ended on dyld's statistics alone before this launch showed that the app prints
    /// `firstFrame`/`done` (LaunchProbe): had the run known, it would have waited for the markers, so such a
    /// launch most likely hung after pre-main. It is re-judged a timeout in samples.jsonl (and in the counts), so no
    /// hang passes as `ok` (README: "Launches that hang after pre-main"). Returns the re-judged samples.
    private func rejudge(_ launches: Set<LaunchSlot>) async throws -> [Sample] {
        let message =
            "dyld's statistics arrived, but not the [launchbench] firstFrame/done markers that later launches of "
            + "this app printed; the app was ended \(LaunchVerdict.formatSeconds(plan.grace)) s after its statistics "
            + "(it hung after pre-main?). Re-judged when the run learned that the app prints markers."
        let corrected = try await store.rewrite { sample in
            sample.runID == runID && sample.deviceUDID == device.udid && sample.appBundleID == plan.app.bundleID
                && sample.status == .ok && launches.contains(LaunchSlot(sample))
        } _: { sample in
            sample.status = .timeout
            sample.message = message
        }
        for sample in corrected {
            reporter.report(
                .deviceNote(
                    device, "launch \(sample.iteration) \(sample.kind.rawValue) re-judged: timeout (no end markers)"))
        }
        return corrected
    }

    /// `--reference-app`: the reference app's own run on this device, interleaved with the main app's
    /// iteration by iteration (`nil` without one).
    private func referenceRun() -> DeviceRun? {
        guard let referenceStore, let referencePlan = plan.referencePlan else { return nil }
        return DeviceRun(
            driver: driver, device: device, plan: referencePlan, runID: runID, store: referenceStore,
            reporter: SilentRunReporter())
    }

    /// `launch`, for the main app: also says whether the launch printed its end markers.
    private mutating func launchMain(iteration: Int, kind: LaunchKind, index: Int, phases: PhaseTimings) async throws
        -> LaunchStep
    {
        var printed = false
        let step = try await launch(iteration: iteration, kind: kind, index: index, phases: phases) {
            printed = $0
        }
        switch step {
        case .recorded(let sample): return .recorded(sample, printedEndMarker: printed)
        case .cancelled: return .cancelled
        }
    }

    /// One iteration of the reference app: make it cold, launch it cold and warm. Returns whether the
    /// device was lost, or `nil` when cancelled. Failures are recorded like the main app's.
    private mutating func referenceIteration(_ iteration: Int) async throws -> Bool? {
        var phases = PhaseTimings()
        let prepared =
            plan.coldMode == .none && iteration > 1 ? nil : try await reinstall(iteration: iteration, phases: &phases)
        switch prepared {
        case .cancelled: return nil
        case .recorded(let failure)?: return failure.status == .deviceLost
        case nil: break
        }
        for launchIndex in 0...max(0, plan.warmLaunches) {
            if Task.isCancelled { return nil }
            guard
                case .recorded(let sample) = try await launch(
                    iteration: iteration, kind: launchIndex == 0 ? .cold : .warm, index: launchIndex,
                    phases: launchIndex == 0 ? phases : PhaseTimings())
            else { return nil }
            if sample.status == .deviceLost { return true }
        }
        return false
    }

    /// Makes the next launch cold; returns a failure sample for the cold launch, `.cancelled`, or `nil` when ready.
    private func prepareColdLaunch(iteration: Int, phases: inout PhaseTimings) async throws -> Step? {
        switch plan.coldMode {
        case .none:
            return nil
        case .reinstall:
            reporter.report(.preparing(udid: device.udid, iteration: iteration, step: "reinstalling"))
            return try await reinstall(iteration: iteration, phases: &phases)
        case .reboot:
            reporter.report(.preparing(udid: device.udid, iteration: iteration, step: "restarting"))
            let startedAt = Date()
            do {
                try await driver.restart(device.udid, timeout: plan.restartTimeout)
            } catch {
                if Task.isCancelled { return .cancelled }
                let message = "The device did not come back after a restart: \(Self.describe(error))"
                return .recorded(
                    try await record(failure: .deviceLost, message: message, iteration: iteration, startedAt: startedAt)
                )
            }
            reporter.report(.preparing(udid: device.udid, iteration: iteration, step: "settling"))
            do { try await Task.sleep(for: plan.settle) } catch { return .cancelled }
            return nil
        }
    }

    /// Uninstalls and installs the app; a failure is recorded as the iteration's cold sample.
    private func reinstall(iteration: Int, phases: inout PhaseTimings) async throws -> Step? {
        let startedAt = Date()
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let timings = try await driver.reinstall(plan.app, on: device.udid, timeout: plan.installTimeout)
            phases = PhaseTimings(
                reinstallMs: LaunchVerdict.milliseconds(clock.now - start),
                uninstallMs: LaunchVerdict.milliseconds(timings.uninstall),
                uploadMs: timings.upload.map(LaunchVerdict.milliseconds),
                installMs: LaunchVerdict.milliseconds(timings.install))
            return nil
        } catch {
            if Task.isCancelled { return .cancelled }
            let lost = (error as? any DriverError)?.failureKind == .deviceLost
            let message = lost ? Self.describe(error) : "The app could not be installed: \(Self.describe(error))"
            return .recorded(
                try await record(
                    failure: lost ? .deviceLost : .installFailed, message: message, iteration: iteration,
                    startedAt: startedAt))
        }
    }

    /// Launches once, watches the output, and records the sample (before the next launch may start).
    /// `phases`: the timings of the work before this launch (the reinstall, on a cold launch).
    private mutating func launch(
        iteration: Int, kind: LaunchKind, index: Int, phases: PhaseTimings,
        printedEndMarker: (Bool) -> Void = { _ in }
    ) async throws -> Step {
        let startedAt = Date()
        let clock = ContinuousClock()
        let start = clock.now
        let log = try store.makeLaunchLog(udid: device.udid, iteration: iteration, kind: kind, launchIndex: index)
        let watcher = LaunchWatcher(
            log: log, timeout: plan.timeout, grace: plan.grace, expectsMarkers: appPrintsEndMarkers)
        let request = LaunchRequest(
            bundleID: plan.app.bundleID, arguments: plan.arguments, environment: plan.launchEnvironment)
        var sample = makeSample(iteration: iteration, kind: kind, index: index, status: .ok, startedAt: startedAt)
        sample.logPath = log.relativePath
        sample.phases = phases
        await kdebug?.mark()
        // Without LaunchProbe the kernel trace ends the launch (LaunchWatcher), so it is followed while it runs.
        let follower = kdebug.map { Self.follow($0, executable: plan.app.executable, watcher: watcher) }
        defer { follower?.cancel() }
        do {
            let termination = try await withTaskCancellationHandler {
                try await driver.launch(request, on: device.udid, observer: watcher)
            } onCancel: {
                watcher.cancel()
            }
            follower?.cancel()
            sample.phases.launchMs = LaunchVerdict.milliseconds(clock.now - start)
            let observation = watcher.finish()
            if observation.printedEndMarker { appPrintsEndMarkers = true }
            printedEndMarker(observation.printedEndMarker)
            if case .endedByHarness(.cancelled) = termination { return .cancelled }
            apply(observation.record, to: &sample)
            if Metric.preMain.contains(where: { sample[$0] != nil }) { sample.premainSource = .dyldStatistics }
            var kdebugMeasured = false
            if let kdebug {
                let capture = await kdebug.capture(executable: plan.app.executable, timeout: Self.kdebugGrace)
                KdebugSampling.keepRaw(capture, of: &sample, store: store)
                if sample.premainSource == .dyldStatistics && plan.crossChecksPremain(on: device) {
                    let difference = KdebugSampling.crossCheck(capture, of: &sample)
                    let skipped = KdebugSampling.untimed(capture, sample).map(\.title)
                    await kdebug.tally(difference, skipped: skipped)
                } else {
                    KdebugSampling.apply(capture, to: &sample, store: store)
                    kdebugMeasured = capture.phases?.mainMs != nil
                }
            }
            // The verdict comes after the trace: a launch kdebug measured is a launch, with or without output.
            guard
                let verdict = LaunchVerdict(
                    termination: termination, observation: observation, timeout: plan.timeout,
                    kdebugMeasured: kdebugMeasured)
            else { return .cancelled }
            sample.status = verdict.status
            sample.message = verdict.message
            sample.exitStatus = verdict.exitStatus
            sample.signal = verdict.signal
            if let wall = verdict.wallMs { sample.metrics[.wallMs] = wall }
        } catch {
            let observation = watcher.finish()
            if Task.isCancelled { return .cancelled }
            apply(observation.record, to: &sample)
            switch (error as? any DriverError)?.failureKind {
            case .deviceLost?: sample.status = .deviceLost
            default: sample.status = .launchRefused
            }
            sample.message = Self.describe(error)
        }
        if let failure = log.failure { sample.warnings.append(failure) }
        try await store.append(sample)
        reporter.report(.launchFinished(sample))
        return .recorded(sample)
    }

    /// Tells `watcher` what the kernel trace shows of the running launch, every 50 ms, until the first frame
    /// or until cancelled.
    private static func follow(_ recorder: KdebugLaunchRecorder, executable: String, watcher: LaunchWatcher)
        -> Task<Void, Never>
    {
        Task {
            let clock = ContinuousClock()
            while !Task.isCancelled {
                let seen = await recorder.progress(of: executable)
                watcher.kdebugProgress(
                    KdebugLaunchProgress(reachedMain: seen.reachedMain, firstFrame: seen.firstFrame), at: clock.now)
                if seen.firstFrame { return }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    private func record(failure status: SampleStatus, message: String, iteration: Int, startedAt: Date) async throws
        -> Sample
    {
        var sample = makeSample(iteration: iteration, kind: .cold, index: 0, status: status, startedAt: startedAt)
        sample.message = message
        try await store.append(sample)
        reporter.report(.launchFinished(sample))
        return sample
    }

    private func apply(_ record: LaunchRecord, to sample: inout Sample) {
        sample.metrics = record.metrics
        sample.bundleImages = record.loadedLibraries.compactMap(\.pathInsideAppBundle)
        sample.initializers = record.imageInitializers
        sample.warnings = record.warnings
    }

    private func makeSample(iteration: Int, kind: LaunchKind, index: Int, status: SampleStatus, startedAt: Date)
        -> Sample
    {
        Sample(
            runID: runID, deviceUDID: device.udid, deviceName: device.name, productType: device.productType,
            osVersion: device.osVersion, appBundleID: plan.app.bundleID, appVersion: plan.app.versionDescription,
            iteration: iteration, kind: kind, launchIndex: index, status: status, startedAt: startedAt)
    }

    /// The error's user-facing text.
    static func describe(_ error: any Error) -> String {
        (error as? any LocalizedError)?.errorDescription ?? String(describing: error)
    }
}

/// One launch's place in a device's run: its iteration and launch index (0 is the cold launch).
struct LaunchSlot: Hashable, Sendable {
    let iteration: Int
    let launchIndex: Int

    init(_ sample: Sample) {
        iteration = sample.iteration
        launchIndex = sample.launchIndex
    }
}

extension Sample {
    /// The sample without what the stopping rules never read (images, initializers, warnings, message, log
    /// path, phases): what a run keeps of a launch once it is on disk.
    var valuesOnly: Sample {
        var copy = self
        copy.bundleImages = []
        copy.initializers = nil
        copy.warnings = []
        copy.message = nil
        copy.logPath = nil
        copy.phases = PhaseTimings()
        return copy
    }
}
