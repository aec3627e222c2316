import Foundation
import LaunchBench

extension DoctorChecker {
    /// One iteration of a run (reinstall, cold launch) through the engine, launcher and kdebug session `run`
    /// would use, into `folder`; then the rows that launch answers.
    mutating func launch(plan: RunPlan, folder: URL) async {
        let decision = doctor.setup.router.decision(for: device)
        guard decision.engine != nil else {
            await add(.fails(.launch, "no engine can launch on this phone", fix: decision.explanation))
            rows.unknown(steps.filter { step in !rows.rows.contains { $0.step == step } }, "not checked: no launch")
            return
        }
        let engines = doctor.setup.engines(
            base: doctor.probe, devices: [device], logs: folder.appendingPathComponent("logs"))
        let observed = engines.kdebug.map(ObservedKdebugTracer.init)
        let runner = BenchmarkRunner(driver: engines.driver, router: engines.router, kdebug: observed)
        var failure: String?
        do {
            let store = try ResultsStore(folder: folder)
            let result = try await runner.run(plan, devices: [device], store: store)
            runFolder = folder
            sample = try? result.samples.first
            if sample == nil {
                failure = result.manifest.outcome(of: device.udid)?.notes.joined(separator: " ") ?? "nothing launched"
            }
        } catch {
            failure = DeviceDoctor.describe(error)
        }
        await engines.shutdown()
        if sample?.status != .ok, await !isAttached() {
            // Gone during the launch: the launch's step says so, and nothing the launch would have shown is known.
            lost = true
            for step in steps where !rows.rows.contains(where: { $0.step == step }) {
                rows.add(
                    step == .launch
                        ? .fails(.launch, "the device went away during the launch", fix: Self.lostFix)
                        : .unknown(step, "not checked: the device went away", needed: step.neededByDefault))
            }
            return
        }
        let wantsKdebug = plan.premainSource(for: device) == .kdebug
        var seen: KdebugSeen?
        if let observation = observed?.observation { seen = await KdebugSeen(observation) }
        // A run that stopped before arming the session (results not writable) says nothing about kdebug.
        let armed = seen.map { $0.startError != nil || $0.timebase != nil } ?? true
        let launch = KdebugLaunchFile.read(
            folder: folder, udid: device.udid, executable: plan.app.executable, timebase: seen?.timebase)
        await add(Self.debugproxy(sample, modern: device.version.map { $0.major >= 17 } ?? false))
        guard armed else {
            await add(launchRow(failure: failure, engine: decision.engine?.rawValue ?? ""))
            rows.unknown(
                steps.filter { step in !rows.rows.contains { $0.step == step } },
                "not checked: the run stopped before its kdebug session started")
            return
        }
        await add(Self.dtservicehub(seen, wantsKdebug: wantsKdebug))
        let logs = folder.appendingPathComponent("logs/\(device.udid)")
        let helper = HelperLogLines(
            machTimeInfo: Self.helperLogLine("machTimeInfo: ", logs: logs),
            firstMessage: Self.helperLogLine("message 1 after start: ", logs: logs))
        for row in Self.session(seen, wantsKdebug: wantsKdebug, helper: helper) { await add(row) }
        await add(launchRow(failure: failure, engine: decision.engine?.rawValue ?? ""))
        for row in Self.launchEvents(launch, seen: seen, sample: sample, wantsKdebug: wantsKdebug) { await add(row) }
        for row in Self.newerIOSRows(device.version, sample: sample, rows: rows.rows) { await add(row) }
    }

    /// What the kdebug helper logged after `prefix` (`machTimeInfo: [...]`, `message 1 after start: ...`), cut to
    /// 160 characters; `nil` when it logged no such line.
    static func helperLogLine(_ prefix: String, logs: URL) -> String? {
        guard let text = try? String(contentsOf: logs.appendingPathComponent("kdebug-tap.log"), encoding: .utf8)
        else { return nil }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return nil }
        return String(line.dropFirst(prefix.count).prefix(160))
    }

    private func launchRow(failure: String?, engine: String) -> DoctorRow {
        guard let sample else {
            return .fails(
                .launch, failure ?? "nothing launched",
                fix: "The message names the cause; `launchbench devices` shows the phone's engine and readiness.")
        }
        let how = "\(engine), \(sample.launcher?.rawValue ?? "debugserver")"
        guard sample.status == .ok else {
            return .fails(
                .launch, "\(how): \(sample.status.rawValue)" + (sample.message.map { ": \($0)" } ?? ""),
                fix: "The launch's log (" + (sample.logPath ?? "logs/")
                    + ") and the engine's log, both in --capture DIR, "
                    + "show what the phone said; a locked phone refuses launches: unlock it.")
        }
        var detail = "\(how): a cold launch after a reinstall"
        if let premain = sample[.totalPremainMs] {
            detail +=
                ", pre-main \(DecimalText.fixed(premain, maxFractionDigits: 1)) ms"
                + (sample.premainSource.map { " (\($0.rawValue))" } ?? "")
        }
        return .holds(.launch, detail)
    }

    /// The forwarded debugserver (iOS 17+): it answers a launch through it; process control does not use it.
    static func debugproxy(_ sample: Sample?, modern: Bool) -> DoctorRow {
        guard let sample else { return .unknown(.debugproxy, "no launch") }
        guard sample.launcher != .processControl else {
            return .unknown(
                .debugproxy, "not used: launches go through process control over dtservicehub", needed: false)
        }
        return sample.status == .ok
            ? .holds(.debugproxy, "the launch went through debugserver over the tunnel")
            : .fails(
                .debugproxy, sample.message ?? sample.status.rawValue,
                fix: "The message names the cause; a phone without the Developer Disk Image lists no debugproxy "
                    + "(`pymobiledevice3 mounter auto-mount --udid UDID`).")
    }
}

/// What the kdebug helper's log says of the session: `machTimeInfo`'s whole reply and the first message after
/// `start` (which the helper reads itself: a notice is not passed on as a chunk).
struct HelperLogLines {
    var machTimeInfo: String?
    var firstMessage: String?
}

/// What the observed session gave, read once.
struct KdebugSeen {
    var startError: (any Error)?
    var timebase: MachTimebase?
    var header: KdebugHeader?
    var firstMessageWasHeader: Bool?
    var chunks: Int
    var bytes: Int
    var records: Int
    var worstLagMs: Double?

    init(_ observation: KdebugObservation) async {
        startError = await observation.startError
        timebase = await observation.timebase
        header = await observation.header
        firstMessageWasHeader = await observation.firstMessageWasHeader
        chunks = await observation.chunks
        bytes = await observation.bytes
        records = await observation.records
        worstLagMs = await observation.worstLagMs
    }
}

/// The launch's raw kdebug as the run kept it (`kdebug/UDID/0001-cold.kdebug`), read back.
struct KdebugLaunchFile {
    var path: URL
    var records: Int
    /// The app's launch in it, when dyld's events of it arrived.
    var launch: KdebugLaunch?
    var error: String?

    static func read(folder: URL, udid: String, executable: String, timebase: MachTimebase?) -> KdebugLaunchFile? {
        let log = ResultsStore.logPath(udid: udid, iteration: 1, kind: .cold, launchIndex: 0)
        let path = folder.appendingPathComponent(
            "kdebug/" + log.dropFirst("logs/".count).dropLast(".log".count) + ".kdebug")
        guard let data = FileManager.default.contents(atPath: path.path) else { return nil }
        do {
            let (trace, _) = try KdebugFile.read([UInt8](data))
            let base = timebase ?? KdebugFile.timebase(of: trace.header).timebase
            let launch = KdebugLaunches.find(in: trace, timebase: base).last { $0.isProcess(named: executable) }
            return KdebugLaunchFile(path: path, records: trace.records.count, launch: launch)
        } catch {
            return KdebugLaunchFile(path: path, records: 0, launch: nil, error: DeviceDoctor.describe(error))
        }
    }
}
