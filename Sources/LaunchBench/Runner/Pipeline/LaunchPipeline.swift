import Foundation

/// The steps of one app's launches on one device: prepare (make the next launch cold), launch, enrich, verdict,
/// record. A value: it learns, launch by launch, whether the app prints its end markers (see `LaunchWatcher`).
/// `DeviceRun` drives it for the main app (and an A/B run's base build) and `ReferenceRun` for the reference app.
struct LaunchPipeline: Sendable {
    let driver: any DeviceDriver
    let device: DeviceInfo
    let plan: RunPlan
    let runID: String
    let store: ResultsStore
    let reporter: any RunReporter
    /// The launch step.
    let launcher: any AppLauncher
    /// What each launch's sample gets beside the app's own output, in order.
    let enrichers: [any SampleEnricher]
    /// Whether this app printed its end markers on this device before.
    var appPrintsEndMarkers = false
    /// Why the device's launches have no pre-main source although it would normally have one (its kdebug
    /// session is missing under `--premain auto`, `DeviceTrace.lost`); `nil` when it has its source.
    var premainMissing: String? = nil
    /// Launches through process control that came back `ok` without dyld's statistics where they are the
    /// device's source, and all such launches: a phone that does not relay dyld's stderr in its output events
    /// (unverified either way) would show it here, and `finish` says what to do.
    var statisticsMissing = (launches: 0, of: 0)

    init(
        driver: any DeviceDriver, device: DeviceInfo, plan: RunPlan, runID: String, store: ResultsStore,
        reporter: any RunReporter, launcher: any AppLauncher, enrichers: [any SampleEnricher]
    ) {
        self.driver = driver
        self.device = device
        self.plan = plan
        self.runID = runID
        self.store = store
        self.reporter = reporter
        self.launcher = launcher
        self.enrichers = enrichers
    }

    /// Makes iteration `iteration`'s launch cold the plan's way, reporting the step.
    func prepare(iteration: Int) async throws -> Preparation {
        switch plan.coldMode {
        case .none:
            return .ready(PhaseTimings())
        case .reinstall:
            reporter.report(.preparing(udid: device.udid, iteration: iteration, step: "reinstalling"))
            return try await reinstall(iteration: iteration)
        case .reboot:
            reporter.report(.preparing(udid: device.udid, iteration: iteration, step: "restarting"))
            let startedAt = Date()
            do {
                try await driver.restart(device.udid, timeout: plan.restartTimeout)
            } catch {
                if Task.isCancelled { return .cancelled }
                let message = "The device did not come back after a restart: \(DeviceRun.describe(error))"
                return .failed(
                    try await record(failure: .deviceLost, message: message, iteration: iteration, startedAt: startedAt)
                )
            }
            reporter.report(.preparing(udid: device.udid, iteration: iteration, step: "settling"))
            do { try await Task.sleep(for: plan.settle) } catch { return .cancelled }
            return .ready(PhaseTimings())
        }
    }

    /// Uninstalls and installs the app; a failure is recorded as the iteration's cold sample.
    func reinstall(iteration: Int) async throws -> Preparation {
        let startedAt = Date()
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let timings = try await driver.reinstall(plan.app, on: device.udid, timeout: plan.installTimeout)
            return .ready(
                PhaseTimings(
                    reinstallMs: LaunchVerdict.milliseconds(clock.now - start),
                    uninstallMs: LaunchVerdict.milliseconds(timings.uninstall),
                    uploadMs: timings.upload.map(LaunchVerdict.milliseconds),
                    installMs: LaunchVerdict.milliseconds(timings.install)))
        } catch {
            if Task.isCancelled { return .cancelled }
            let lost = (error as? any DriverError)?.failureKind == .deviceLost
            let message =
                lost ? DeviceRun.describe(error) : "The app could not be installed: \(DeviceRun.describe(error))"
            return .failed(
                try await record(
                    failure: lost ? .deviceLost : .installFailed, message: message, iteration: iteration,
                    startedAt: startedAt))
        }
    }

    /// Lets every enricher end what it holds (after the device's last launch); returns their notes, in order.
    func finish() async -> [String] {
        var notes: [String] = []
        for enricher in enrichers { notes += await enricher.finish() }
        if statisticsMissing.launches > 0 {
            notes.append(
                "\(device.name): \(statisticsMissing.launches) of \(statisticsMissing.of) launches through process "
                    + "control came back without dyld's printed statistics (its output events did not carry dyld's "
                    + "stderr): run again with --launcher debugserver to read them through debugserver.")
        }
        return notes
    }

    /// Records source `none` and why on a launch of a device whose pre-main source is missing (`premainMissing`),
    /// so that no launch of it looks like one that had phases to give, and every report and the gate can say so.
    func markPremainMissing(_ sample: inout Sample) {
        guard let premainMissing, sample.premainSource == nil else { return }
        sample.premainSource = .notMeasured
        sample.warnings.append("No pre-main phases (premain_source none): \(premainMissing)")
    }

    /// Counts a launch for `statisticsMissing`.
    mutating func noteStatistics(of sample: Sample) {
        guard launcher.method == .processControl, sample.status == .ok,
            plan.premainSource(for: device) == .dyldStatistics
        else { return }
        statisticsMissing.of += 1
        if sample.premainSource != .dyldStatistics { statisticsMissing.launches += 1 }
    }

    /// Records a launch that could not be made as the iteration's cold sample.
    private func record(failure status: SampleStatus, message: String, iteration: Int, startedAt: Date) async throws
        -> Sample
    {
        var sample = makeSample(
            LaunchAttempt(iteration: iteration, index: 0, phases: PhaseTimings()), status: status, startedAt: startedAt)
        sample.message = message
        try await store.append(sample)
        reporter.report(.launchFinished(sample))
        return sample
    }

    func makeSample(_ attempt: LaunchAttempt, status: SampleStatus, startedAt: Date) -> Sample {
        var sample = Sample(
            runID: runID, deviceUDID: device.udid, deviceName: device.name, productType: device.productType,
            osVersion: device.osVersion, appBundleID: plan.app.bundleID, appVersion: plan.app.versionDescription,
            iteration: attempt.iteration, kind: attempt.kind, launchIndex: attempt.index, status: status,
            startedAt: startedAt)
        sample.build = plan.build
        return sample
    }
}
