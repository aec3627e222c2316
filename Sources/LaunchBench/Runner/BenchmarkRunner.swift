import Foundation

/// Runs a benchmark over a `DeviceDriver`: devices in parallel, each device's launches in order,
/// every launch recorded in the results folder as it is measured.
package struct BenchmarkRunner: Sendable {
    /// How devices are reached (libimobiledevice, an engine router, or a fake in tests).
    package let driver: any DeviceDriver
    /// Which engine launches on each device: the same router the driver sends each device's calls by.
    package let router: EngineRouter
    /// Who hears about progress (the terminal view, or nobody).
    package let reporter: any RunReporter
    /// Who arms kernel-trace sessions for the devices whose pre-main source is kdebug (`nil`: no engine
    /// can, and those devices say so).
    package let kdebug: (any KdebugTracing)?
    /// Who reads each device's conditions before each iteration (`nil`: none are recorded, and a `--require`
    /// says for every device that it cannot be checked).
    package let conditions: (any DeviceConditionReading)?

    /// A runner over `driver`, whose engines `router` decides, reporting to `reporter`, reading kdebug through
    /// `kdebug`.
    package init(
        driver: any DeviceDriver, router: EngineRouter = .libimobiledeviceOnly,
        reporter: any RunReporter = SilentRunReporter(), kdebug: (any KdebugTracing)? = nil,
        conditions: (any DeviceConditionReading)? = nil
    ) {
        self.conditions = conditions
        self.driver = driver
        self.router = router
        self.reporter = reporter
        self.kdebug = kdebug
    }

    /// The devices the plan names (in its order), or every attached device when it names none, in
    /// `devices`. Only the named devices are read; a device whose values cannot be read (restarting,
    /// unplugged) is reported and returned in `unreadable`, and the others go on.
    /// - Throws: `LaunchBenchError.deviceNotAttached` (listing the attached ones), `.noDevicesAttached`, or
    ///   `.noReadableDevice` when every device to measure was unreadable.
    package func selectDevices(for plan: RunPlan) async throws -> DeviceListing {
        try await Self.selectDevices(for: plan, from: driver, reporter: reporter)
    }

    /// `selectDevices(for:)` before any engine is composed: the composition root selects the devices and
    /// prepares the results folder first, then builds the engines (and the one runner) that write into it.
    package static func selectDevices(
        for plan: RunPlan, from driver: any DeviceDriver, reporter: any RunReporter
    ) async throws -> DeviceListing {
        let named = plan.deviceUDIDs.reduce(into: [String]()) { names, udid in
            if !names.contains(where: { $0.caseInsensitiveCompare(udid) == .orderedSame }) { names.append(udid) }
        }
        let listing = try await driver.listDevices(reading: named.isEmpty ? nil : named)
        for device in listing.unreadable { reporter.report(.deviceUnreadable(device)) }
        func isUnreadable(_ udid: String) -> Bool {
            listing.unreadable.contains { $0.udid.caseInsensitiveCompare(udid) == .orderedSame }
        }
        var selected: [DeviceInfo] = []
        if named.isEmpty {
            guard !listing.attached.isEmpty else { throw LaunchBenchError.noDevicesAttached }
            selected = listing.devices
        }
        for udid in named where !isUnreadable(udid) {
            guard let device = listing.devices.first(where: { $0.udid.caseInsensitiveCompare(udid) == .orderedSame })
            else {
                throw LaunchBenchError.deviceNotAttached(udid: udid, attached: listing.attached)
            }
            selected.append(device)
        }
        guard !selected.isEmpty else { throw LaunchBenchError.noReadableDevice(listing.unreadable) }
        return DeviceListing(devices: selected, unreadable: listing.unreadable, attached: listing.attached)
    }

    /// Runs the plan on `devices`, writing into `store`. When the task is cancelled (Ctrl-C), the launches
    /// in flight are ended, nothing measured is lost, and the result says `interrupted`.
    /// - Parameters:
    ///   - busy: devices another run holds (UDID → why), recorded as skipped and not launched.
    /// - Throws: `LaunchBenchError.cannotWrite` when results cannot be written (naming the write that failed).
    package func run(
        _ plan: RunPlan, devices: [DeviceInfo], store: ResultsStore, runID: String = UUID().uuidString.lowercased(),
        busy: [String: String] = [:]
    ) async throws -> RunResult {
        var manifest = Self.startManifest(plan, devices: devices, runID: runID)
        var outcomes = manifest.deviceOutcomes ?? []
        let measured = advise(plan, devices: devices, outcomes: &outcomes, busy: busy)
        manifest.deviceOutcomes = outcomes
        try await store.writeManifest(manifest)
        let reference = try await Self.openReference(plan, manifest: manifest, folder: store.folder)
        let base = try await Self.openBase(plan, manifest: manifest, folder: store.folder)
        let started = await startTraces(for: measured.map { devices[$0] }, plan: plan)
        let kept = await refuseLostTraces(
            plan, devices: devices, measured: measured, traces: started, outcomes: &outcomes)
        let (counts, failure) = await measure(
            plan, devices: devices, measured: kept.map { measured[$0] }, traces: kept.map { started[$0] },
            outcomes: &outcomes, runID: runID,
            store: store, referenceStore: reference?.store, baseStore: base?.store)
        manifest.endedAt = Date()
        manifest.deviceOutcomes = outcomes
        manifest.interrupted = Task.isCancelled || failure != nil || outcomes.contains { $0.outcome == .interrupted }
        try await Self.finish(
            manifest, store: store, companions: [reference, base].compactMap { $0 }, failure: failure)
        if let failure { throw failure }
        return RunResult(folder: store.folder, manifest: manifest, counts: counts)
    }

    /// run.json as the run starts: the app, the options, the devices, each device's outcome still to come.
    static func startManifest(_ plan: RunPlan, devices: [DeviceInfo], runID: String) -> RunManifest {
        var manifest = RunManifest(
            runID: runID, startedAt: Date(), app: RunManifest.App(plan.app), options: Self.options(plan),
            devices: devices, deviceOutcomes: devices.map { RunManifest.DeviceOutcome(udid: $0.udid) },
            interrupted: false)
        if let basePlan = plan.basePlan {
            manifest.builds = [
                RunManifest.Build(plan.app, role: RunManifest.newBuild),
                RunManifest.Build(basePlan.app, role: RunManifest.baseBuild),
            ]
            manifest.pairedDesign =
                plan.pairedVerdict?.design ?? PairedSequentialVerdict(maxPairs: plan.iterationLimit)
        }
        return manifest
    }

    /// Records each device's engine, then skips the busy ones and the ones their advice skips, and reports
    /// the notes of the others. Returns the indices in `devices` of those to measure.
    private func advise(
        _ plan: RunPlan, devices: [DeviceInfo], outcomes: inout [RunManifest.DeviceOutcome], busy: [String: String]
    ) -> [Int] {
        var measured: [Int] = []
        for (index, device) in devices.enumerated() {
            let engine = router.decision(for: device)
            outcomes[index].engine = engine.engine?.rawValue
            outcomes[index].engineReason = engine.engine == nil ? nil : engine.explanation
            if let reason = busy[device.udid] {
                outcomes[index].outcome = .skipped
                outcomes[index].notes = [reason]
                reporter.report(.deviceSkipped(device, reason))
                continue
            }
            switch DeviceAdvice.advice(for: device, plan: plan, engine: engine, readsKdebug: kdebug != nil) {
            case .skip(let reason):
                outcomes[index].outcome = .skipped
                outcomes[index].notes = [reason]
                reporter.report(.deviceSkipped(device, reason))
            case .measure(let notes):
                outcomes[index].notes = notes
                for note in notes { reporter.report(.deviceNote(device, note)) }
                measured.append(index)
            }
        }
        return measured
    }

    /// Runs the measured devices in parallel, each with its trace, and merges each device's end into
    /// `outcomes` as it comes. The first failure cancels the others and is returned.
    private func measure(
        _ plan: RunPlan, devices: [DeviceInfo], measured: [Int], traces: [DeviceTrace],
        outcomes: inout [RunManifest.DeviceOutcome], runID: String, store: ResultsStore, referenceStore: ResultsStore?,
        baseStore: ResultsStore?
    ) async -> (LaunchCounts, (any Error)?) {
        var counts = LaunchCounts()
        var failure: (any Error)?
        await withTaskGroup(of: DeviceCompletion.self) { group in
            for (position, index) in measured.enumerated() {
                let device = devices[index]
                let trace = traces[position]
                group.addTask { [driver, reporter, conditions] in
                    await DeviceCompletion(index: index) {
                        // Without a reader the conditions are not recorded at all, unless --require asks for
                        // them: then each device says they cannot be checked.
                        let watch =
                            conditions == nil && plan.conditions.requirements.isEmpty
                            ? nil
                            : ConditionWatch(
                                reader: conditions, policy: plan.conditions, device: device, reporter: reporter)
                        var session = DeviceRun(
                            driver: driver, device: device, plan: plan, runID: runID, store: store, reporter: reporter,
                            referenceStore: referenceStore, baseStore: baseStore, trace: trace,
                            conditions: watch)
                        return try await session.run()
                    }
                }
            }
            for await completion in group {
                if let error = Self.merge(completion, into: &outcomes, counts: &counts) {
                    if failure == nil { failure = error }
                    group.cancelAll()
                }
            }
        }
        return (counts, failure)
    }

    /// A device's end into its outcome and the run's counts; the error when the device's run failed.
    private static func merge(
        _ completion: DeviceCompletion, into outcomes: inout [RunManifest.DeviceOutcome], counts: inout LaunchCounts
    ) -> (any Error)? {
        let index = completion.index
        switch completion.result {
        case .success(let deviceResult):
            outcomes[index].outcome = deviceResult.outcome
            outcomes[index].notes += deviceResult.notes
            if let note = deviceResult.note { outcomes[index].notes.append(note) }
            outcomes[index].premainSource = deviceResult.premainSource
            outcomes[index].launcher = deviceResult.launcher
            outcomes[index].stop = deviceResult.stop
            outcomes[index].conditions = deviceResult.conditions
            outcomes[index].firstFrameSources =
                deviceResult.firstFrameSources.isEmpty ? nil : deviceResult.firstFrameSources
            counts = counts + deviceResult.counts
            return nil
        case .failure(let error):
            outcomes[index].outcome = .interrupted
            return error
        }
    }

    /// Writes the final run.json (and the reference and base folders'), then closes the stores. When that
    /// fails, the error to throw is the run's own `failure` if there was one, noting that run.json could not be
    /// updated.
    private static func finish(
        _ manifest: RunManifest, store: ResultsStore, companions: [(store: ResultsStore, manifest: RunManifest)],
        failure: (any Error)?
    ) async throws {
        do {
            try await store.writeManifest(manifest)
            await store.close()
            for companion in companions {
                var companionManifest = companion.manifest
                companionManifest.endedAt = manifest.endedAt
                companionManifest.deviceOutcomes = manifest.deviceOutcomes
                companionManifest.interrupted = manifest.interrupted
                try await companion.store.writeManifest(companionManifest)
                await companion.store.close()
            }
        } catch {
            await store.close()
            // The write that failed first is the one to name (a full disk fails run.json too, but later);
            // run.json is written atomically, so it keeps its last good state.
            guard let failure else { throw error }
            throw Self.adding(error, to: failure)
        }
    }

    /// `failure` with a note that run.json could not be updated either.
    static func adding(_ manifestError: any Error, to failure: any Error) -> any Error {
        guard case LaunchBenchError.cannotWrite(let path, let reason)? = failure as? LaunchBenchError else {
            return failure
        }
        let detail = (manifestError as? any LocalizedError)?.errorDescription ?? "\(manifestError)"
        return LaunchBenchError.cannotWrite(
            path: path,
            reason: reason + "; run.json keeps its state from the start of the run, as the end could not "
                + "be recorded either (\(detail))")
    }

    /// Arms every device's trace session, all at once, before the first launch anywhere: a helper starting
    /// up (pymobiledevice3's imports take ~1 s of CPU) must not compete with another device's launches.
    /// One per device, in the order of `devices`.
    private func startTraces(for devices: [DeviceInfo], plan: RunPlan) async -> [DeviceTrace] {
        await withTaskGroup(of: (Int, DeviceTrace).self) { group in
            for (position, device) in devices.enumerated() {
                group.addTask { [reporter, kdebug] in
                    let trace = await DeviceTrace.start(
                        plan.premainSource(for: device), crossCheck: plan.crossChecksPremain(on: device), on: device,
                        with: kdebug, reporter: reporter)
                    return (position, trace)
                }
            }
            var traces = [DeviceTrace](repeating: DeviceTrace(), count: devices.count)
            for await (position, trace) in group { traces[position] = trace }
            return traces
        }
    }

    /// With `--reference-app`: the results folder `DIR/reference/` for its launches (a results folder of
    /// its own, so `launchbench report DIR/reference` works and DIR's exports hold the main app only).
    static func openReference(_ plan: RunPlan, manifest: RunManifest, folder: URL) async throws
        -> (store: ResultsStore, manifest: RunManifest)?
    {
        guard let referencePlan = plan.referencePlan else { return nil }
        return try await openCompanion(
            RunManifest.referenceFolderName, app: referencePlan.app, manifest: manifest, folder: folder)
    }

    /// With `--against`: the results folder `DIR/base/` for the base build's launches, as `DIR/reference/`;
    /// its run.json names both builds too.
    static func openBase(_ plan: RunPlan, manifest: RunManifest, folder: URL) async throws
        -> (store: ResultsStore, manifest: RunManifest)?
    {
        guard let basePlan = plan.basePlan else { return nil }
        return try await openCompanion(
            RunManifest.baseFolderName, app: basePlan.app, manifest: manifest, folder: folder)
    }

    /// A results folder inside the run's for a second app's launches, its run.json the run's with that app.
    private static func openCompanion(_ name: String, app: AppBundle, manifest: RunManifest, folder: URL)
        async throws -> (store: ResultsStore, manifest: RunManifest)
    {
        let url = folder.appendingPathComponent(name)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw LaunchBenchError.cannotWrite(path: url.path, reason: error.localizedDescription)
        }
        let store = try ResultsStore(folder: url)
        var companionManifest = manifest
        companionManifest.app = RunManifest.App(app)
        try await store.writeManifest(companionManifest)
        return (store, companionManifest)
    }

    static func options(_ plan: RunPlan) -> RunManifest.Options {
        var other = ["grace (s)": LaunchVerdict.formatSeconds(plan.grace)]
        if plan.coldMode == .reboot { other["settle (s)"] = LaunchVerdict.formatSeconds(plan.settle) }
        if !plan.arguments.isEmpty { other["arguments"] = plan.arguments.joined(separator: " ") }
        if let design = plan.untilVerdict?.design {
            other["until verdict"] = "launches \(design.minimumLaunches)…\(design.maxLaunches)"
        }
        if let reference = plan.referenceApp {
            other["reference app"] = "\(reference.bundleID) \(reference.versionDescription)"
        }
        if let against = plan.against {
            other["against"] = "\(against.url.path) \(against.versionDescription)"
        }
        if let design = plan.pairedVerdict?.design {
            other["until verdict"] = "pairs \(design.minimumPairs)…\(design.maxPairs)"
        }
        return RunManifest.Options(
            iterations: plan.iterations, cold: plan.coldMode.rawValue, warm: plan.warmLaunches,
            timeoutSeconds: LaunchVerdict.milliseconds(plan.timeout) / 1000,
            environment: plan.environment.map(\.assignment),
            targetPrecisionPercent: plan.stopping?.targetPrecisionPercent,
            maxIterations: plan.stopping?.maxIterations ?? plan.untilVerdict?.design.maxLaunches
                ?? plan.pairedVerdict?.design.maxPairs, other: other)
    }
}

/// One device's end, as a child task hands it back to `BenchmarkRunner.run`.
///
/// A named struct on purpose: Swift 6.3.1 `-O` miscompiles a child task that returns the tuple
/// `(Int, Result<T, any Error>)` straight from a `do`/`catch` (the index arrives as 0 or garbage, and
/// `outcomes[index]` traps with SIGILL in release builds only). Building the `Result` first and returning
/// a struct gives the right values; `ReleaseMiscompileTests` keeps the shape under test.
struct DeviceCompletion: Sendable {
    let index: Int
    let result: Result<DeviceRun.Result, any Error>

    init(index: Int, _ body: () async throws -> DeviceRun.Result) async {
        let result: Result<DeviceRun.Result, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        self.index = index
        self.result = result
    }
}

/// What a run produced.
package struct RunResult: Sendable {
    /// The results folder the run wrote (its `--output`), which `ResultsFolder.load` reads back.
    package var folder: URL
    /// `run.json` as written at the end.
    package var manifest: RunManifest
    /// How the launches ended. The run keeps no list of its samples (its memory would grow with the launches):
    /// `samples` reads them back.
    package var counts: LaunchCounts

    /// Every recorded sample, read back from `samples.jsonl`: device by device (in the run's device order),
    /// each device's in launch order.
    /// - Throws: `LaunchBenchError` when the folder cannot be read.
    package var samples: [Sample] {
        get throws { inDeviceOrder(try ResultsFolder.loadSamples(folder).samples) }
    }

    /// `samples` (in file order, as devices finished their launches) device by device, in the run's device order.
    func inDeviceOrder(_ samples: [Sample]) -> [Sample] {
        let order = Dictionary(manifest.devices.enumerated().map { ($0.element.udid, $0.offset) }) { first, _ in first }
        return samples.enumerated().sorted {
            (order[$0.element.deviceUDID] ?? .max, $0.offset) < (order[$1.element.deviceUDID] ?? .max, $1.offset)
        }.map(\.element)
    }

    /// The run was cancelled before every launch was made.
    package var interrupted: Bool { manifest.interrupted ?? false }

    /// Devices that were skipped, lost, stopped early or interrupted.
    package var devicesNotFullyMeasured: [RunManifest.DeviceOutcome] {
        (manifest.deviceOutcomes ?? []).filter { $0.outcome != .measured }
    }
}
