import Foundation

/// Runs the plan's launches on one device, in order, and records each as a sample: a loop over launch
/// attempts (prepare → launch → enrich → verdict → record, see `LaunchPipeline`) that `StoppingRules` end.
///
/// Launch failures become samples and the loop goes on; only a lost device, repeated refusals or failed
/// installs, a stopping rule of the plan or cancellation end it early. Only a results-store failure is thrown
/// (the run cannot keep results).
struct DeviceRun: Sendable {
    /// The main app's launches (in an A/B run, the new build's).
    private var pipeline: LaunchPipeline
    /// An A/B run's base build (`--against`): the same steps, its samples in `baseStore`; `nil` otherwise.
    private var base: LaunchPipeline?
    /// The device's conditions, read (and waited for, with `--require`) before each iteration.
    private let conditions: ConditionWatch?
    /// The reference app's launches (`--reference-app`), interleaved with the main app's; `nil` without one.
    private var reference: ReferenceRun?
    /// The device's kernel-trace session, armed before the run's first launch, and where its pre-main phases
    /// come from; the device's kdebug enricher uses it and stops it after the last launch.
    private let trace: DeviceTrace

    struct Result: Sendable {
        var outcome: RunManifest.DeviceOutcome.Outcome
        var note: String?
        /// How its launches ended (the samples are in the results folder only).
        var counts: LaunchCounts
        /// Where its pre-main phases come from when that is not the plain story, then what the enrichers said
        /// after its last launch (how kdebug and dyld's statistics compared).
        var notes: [String] = []
        /// Where its pre-main phases came from.
        var premainSource: PremainSource?
        /// Why its launches ended (`stop` in run.json, read by the gate).
        var stop: StopDecision? = nil
        /// How its app was launched.
        var launcher: LaunchMethod? = nil
        /// Its conditions over the run (`conditions` in run.json).
        var conditions: DeviceConditionsRecord? = nil
        /// Where its first frames came from (`first_frame_source` in run.json).
        var firstFrameSources: [FirstFrameSource] = []
    }

    /// The run of `plan` on `device`, recorded in `store` (and the reference app's in `referenceStore`).
    /// - Parameters:
    ///   - launcher: the launch step; `nil`: through `driver`.
    ///   - enrichers: what each launch's sample gets after kdebug's, in order.
    init(
        driver: any DeviceDriver, device: DeviceInfo, plan: RunPlan, runID: String, store: ResultsStore,
        reporter: any RunReporter, referenceStore: ResultsStore? = nil, baseStore: ResultsStore? = nil,
        trace: DeviceTrace = DeviceTrace(), launcher: (any AppLauncher)? = nil, enrichers: [any SampleEnricher] = [],
        conditions: ConditionWatch? = nil
    ) {
        self.conditions = conditions
        let enrichers = enrichers + (conditions.map { [$0] } ?? [])
        var fallback: String?
        let launcher =
            launcher
            ?? Self.launcher(
                plan.launcher, trace: trace, wantsKdebug: plan.premainSource(for: device) == .kdebug, device: device,
                driver: driver, conditions: plan.conditions, fallback: &fallback)
        if let fallback { reporter.report(.deviceNote(device, fallback)) }
        launcherNote = fallback
        // Without a kdebug session prelaunches are read from the device log: one log for the device, so the next
        // launch of either build takes what the phone did since the previous one, as the shared session does.
        let prelaunchLog =
            trace.recorder == nil ? PrelaunchLog(driver: driver, udid: device.udid, bundleID: plan.app.bundleID) : nil
        pipeline = LaunchPipeline(
            driver: driver, device: device, plan: plan, runID: runID, store: store, reporter: reporter,
            launcher: launcher,
            enrichers: Self.enrichers(
                plan, device: device, store: store, trace: trace, prelaunchLog: prelaunchLog, reporter: reporter)
                + enrichers)
        pipeline.premainMissing = trace.lost
        if let baseStore, let basePlan = plan.basePlan {
            // Measured exactly as the new build (same launcher, same enrichers over the device's one kdebug session
            // or log); the session and the log are stopped once, by the new build's pipeline.
            base = LaunchPipeline(
                driver: driver, device: device, plan: basePlan, runID: runID, store: baseStore,
                reporter: SilentRunReporter(), launcher: launcher,
                enrichers: Self.enrichers(
                    basePlan, device: device, store: baseStore, trace: trace, prelaunchLog: prelaunchLog,
                    reporter: SilentRunReporter()) + enrichers)
            base?.premainMissing = trace.lost
        }
        if let referenceStore, let referencePlan = plan.referencePlan {
            reference = ReferenceRun(
                pipeline: LaunchPipeline(
                    driver: driver, device: device, plan: referencePlan, runID: runID, store: referenceStore,
                    reporter: SilentRunReporter(), launcher: launcher, enrichers: []))
        }
        self.trace = trace
    }

    /// What a build's pipeline measures beside the app's output from the device's kdebug session: its phases and
    /// the prelaunches it sees, labelled by `plan`'s rules; without a session, the prelaunches `prelaunchLog`
    /// reads. The one way every pipeline of a device (NEW's and BASE's in an A/B run) gets them.
    private static func enrichers(
        _ plan: RunPlan, device: DeviceInfo, store: ResultsStore, trace: DeviceTrace, prelaunchLog: PrelaunchLog?,
        reporter: any RunReporter
    ) -> [any SampleEnricher] {
        if let recorder = trace.recorder {
            return [
                KdebugEnricher(
                    recorder: recorder, executable: plan.app.executable,
                    crossChecks: plan.crossChecksPremain(on: device),
                    store: store, initializerNames: initializerNames(plan, device: device, reporter: reporter)
                ).labelling(plan)
            ]
        }
        return prelaunchLog.map { [PrelaunchWatch(log: $0, plan: plan)] } ?? []
    }

    /// Why the device launches through debugserver although `--launcher auto` would have taken process control.
    private let launcherNote: String?

    private var device: DeviceInfo { pipeline.device }
    private var plan: RunPlan { pipeline.plan }
    private var reporter: any RunReporter { pipeline.reporter }

    mutating func run() async throws -> Result {
        reporter.report(.deviceStarted(device, iterations: plan.iterationLimit))
        var tally = LaunchTally(keepsValues: StoppingRules.readValues(plan))
        var baseTally = LaunchTally(keepsValues: false)
        let stop: DeviceStop
        do {
            stop = try await launches(&tally, &baseTally)
        } catch {
            _ = await pipeline.finish()
            throw error
        }
        reporter.report(.deviceFinished(udid: device.udid, outcome: stop.outcome, message: stop.note))
        let notes = await pipeline.finish()
        return Result(
            outcome: stop.outcome, note: stop.note, counts: tally.counts + baseTally.counts,
            notes: (trace.note.map { [$0] } ?? []) + (launcherNote.map { [$0] } ?? []) + notes,
            // Without kdebug, what the launches printed (if anything) was the source.
            premainSource: trace.source ?? (tally.printedStatistics ? .dyldStatistics : nil), stop: stop.decision,
            launcher: pipeline.launcher.method, conditions: conditions?.record,
            firstFrameSources: tally.firstFrameSources
                + baseTally.firstFrameSources.filter {
                    !tally.firstFrameSources.contains($0)
                })
    }

    /// The loop: an install first (unless each iteration reinstalls), then iteration after iteration, until
    /// a stopping rule ends it or the plan's iterations are made. In an A/B run each iteration measures both
    /// builds, each with its reinstall, cold and warm launches, in ABBA order (odd iterations the new build
    /// first, even ones the base build first), so a drift of the phone weighs on both alike; `baseTally` counts
    /// the base build's launches.
    private mutating func launches(_ tally: inout LaunchTally, _ baseTally: inout LaunchTally) async throws
        -> DeviceStop
    {
        if plan.coldMode != .reinstall {
            reporter.report(.preparing(udid: device.udid, iteration: 1, step: "installing"))
            switch try await pipeline.reinstall(iteration: 1) {
            case .cancelled: return .interrupted(tally)
            case .failed(let failure):
                tally.keep(failure)
                if failure.status == .deviceLost { return .lost(failure.message, tally) }
                return DeviceStop(
                    .stopped, .failedInstalls, note: "The app could not be installed: \(failure.message ?? "")",
                    tally: tally)
            case .ready: break
            }
        }
        var rules = StoppingRules(plan)
        for iteration in 1...max(1, plan.iterationLimit) {
            if Task.isCancelled { return .interrupted(tally) }
            if let stop = await conditions?.stop(before: iteration, tally: tally) { return stop }
            let order: [Build] = base == nil ? [.new] : iteration % 2 == 1 ? [.new, .base] : [.base, .new]
            var skipped = false
            for build in order where !skipped {
                let end: IterationEnd
                if build == .base, var base {
                    defer { self.base = base }
                    end = try await Self.iteration(iteration, of: &base, &baseTally, &rules, stopTally: tally)
                } else {
                    end = try await Self.iteration(iteration, of: &pipeline, &tally, &rules, stopTally: nil)
                }
                switch end {
                case .stop(let stop): return stop
                case .skipped: skipped = true
                case .made: break
                }
            }
            if skipped { continue }  // this iteration's other launches are skipped
            if reference != nil {
                guard let lost = try await reference?.iteration(iteration) else { return .interrupted(tally) }
                if lost { return .lost("The device disappeared during the reference app's launches.", tally) }
            }
            if let stop = rules.decide(after: .iterationEnded(iteration), tally: tally) { return stop }
        }
        return DeviceStop(.measured, .iterations, note: nil, tally: tally)
    }

    /// An A/B run's two builds, in the order an iteration measures them.
    private enum Build { case new, base }

    /// How one build's part of an iteration ended.
    private enum IterationEnd {
        /// Its launches were made.
        case made
        /// Its prepare step failed (recorded, seen by the rules): the iteration's other launches are skipped.
        case skipped
        /// A rule, a lost device or cancellation ended the device's run.
        case stop(DeviceStop)
    }

    /// One build's part of an iteration: its prepare step, then its cold launch and warm launches.
    /// - Parameter stopTally: the tally a stop is reported with when it is not `tally` (the base build's
    ///   launches stop the device with the new build's count of iterations).
    private static func iteration(
        _ iteration: Int, of pipeline: inout LaunchPipeline, _ tally: inout LaunchTally, _ rules: inout StoppingRules,
        stopTally: LaunchTally?
    ) async throws -> IterationEnd {
        let phases: PhaseTimings
        switch try await pipeline.prepare(iteration: iteration) {
        case .cancelled: return .stop(.interrupted(stopTally ?? tally))
        case .failed(let failure):
            tally.keep(failure)
            return rules.decide(after: .prepared(failure: failure), tally: stopTally ?? tally).map { .stop($0) }
                ?? .skipped
        case .ready(let timings):
            phases = timings
            _ = rules.decide(after: .prepared(failure: nil), tally: stopTally ?? tally)
        }
        for index in 0...max(0, pipeline.plan.warmLaunches) {
            if Task.isCancelled { return .stop(.interrupted(stopTally ?? tally)) }
            let knewMarkers = pipeline.appPrintsEndMarkers
            let attempt = LaunchAttempt(iteration: iteration, index: index, phases: phases)
            guard case .recorded(let sample, let printedEndMarker) = try await pipeline.launch(attempt) else {
                return .stop(.interrupted(stopTally ?? tally))
            }
            tally.keep(sample)
            let toRejudge = tally.endMarkers.note(sample, printedEndMarker: printedEndMarker, knewMarkers: knewMarkers)
            if !toRejudge.isEmpty {
                for corrected in try await pipeline.rejudge(toRejudge) {
                    tally.rejudged(corrected)
                    _ = rules.decide(after: .rejudged(corrected), tally: stopTally ?? tally)
                }
            }
            if let stop = rules.decide(after: .launched(sample), tally: stopTally ?? tally) { return .stop(stop) }
        }
        return .made
    }

    /// The error's user-facing text.
    static func describe(_ error: any Error) -> String {
        (error as? any LocalizedError)?.errorDescription ?? String(describing: error)
    }
}
