import ArgumentParser
import Dispatch
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice

/// What `run` and `demo` share: select devices, prepare the results folder, run with live progress,
/// stop cleanly on Ctrl-C, then print the summary, write the exports and say where the results are.
enum RunExecution {
    /// Runs `plan` with `engines` and reports it; returns the exit code of the run's `RunVerdict`. This is the
    /// composition root of a run: the devices are selected and the results folder prepared first, then the
    /// engines are composed once, their helpers logging into the folder (DIR/logs/<UDID>/pymobiledevice3.log,
    /// kdebug-tap.log), and stopped before this returns.
    /// - Parameter mangledNamesNote: said once, above the progress, when a kdebug launch leaves a Swift
    ///   initializer's name mangled (no `swift-demangle` was found).
    /// - Throws: errors that stop the run before or while it writes results (unknown device, every device busy,
    ///   unusable `--output`, a results write error).
    static func execute(
        _ plan: RunPlan, engines setup: EngineSetup, usbmuxd: USBMuxAddress?, output: String?,
        overwrite: Bool = false, gate: RunGate? = nil, mangledNamesNote: String? = nil
    ) async throws -> ExitCode {
        let progress = RunProgressView()
        let reporter: any RunReporter =
            mangledNamesNote.map { MangledNamesNote(forwardingTo: progress, note: $0) } ?? progress
        let base = MobileDeviceDriver()
        let workingDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        let selection = try await BenchmarkRunner.selectDevices(for: plan, from: base, reporter: progress)
        let devices = selection.devices
        let locks = try DeviceLocks.acquire(devices, usbmuxd: usbmuxd)
        defer { locks.release() }
        let folder = try OutputFolder.prepare(
            output: output.map { URL(fileURLWithPath: $0) }, workingDirectory: workingDirectory, overwrite: overwrite,
            protected: gate?.baselineFolder.map { [$0] } ?? [])
        let store = try ResultsStore(folder: folder)
        let engines = setup.engines(base: base, devices: devices, logs: folder.appendingPathComponent("logs"))
        do {
            let code = try await measure(
                plan, runner: engines.runner(reporter: reporter, conditions: base), progress: progress,
                devices: selection,
                store: store, busy: locks.busy, gate: gate)
            await engines.shutdown()
            return code
        } catch {
            await engines.shutdown()
            throw error
        }
    }

    /// Runs with live progress, stops cleanly on Ctrl-C, then prints the summary, writes the exports and says
    /// where the results are.
    private static func measure(
        _ plan: RunPlan, runner: BenchmarkRunner, progress: RunProgressView, devices selection: DeviceListing,
        store: ResultsStore, busy: [String: String], gate: RunGate?
    ) async throws -> ExitCode {
        let devices = selection.devices
        let folder = store.folder
        Terminal.note(introduction(plan, devices: devices, folder: folder))

        let run = Task { try await runner.run(plan, devices: devices, store: store, busy: busy) }
        let interruption = Interruption { run.cancel() }
        let result: RunResult
        do {
            result = try await run.value
        } catch {
            interruption.stop()
            throw error
        }
        interruption.stop()
        progress.finish()

        if result.interrupted { Terminal.note("Interrupted: every launch finished so far is kept in \(folder.path).") }
        let conclusion = RunConclusion.conclude(
            result, gate: gate?.check, unreadableDevices: selection.unreadable.count, signal: interruption.received)
        printSummary(conclusion, folder: folder)
        Terminal.output("Results: \(folder.path)\n")
        if let current = conclusion.current { try gate?.writeAllowedDylibs(current) }
        if let failure = conclusion.gateFailure { throw failure }
        if let report = conclusion.report, let gate {
            Terminal.output("\n")
            try GateOutput.write(
                report, format: .table, to: nil, junit: gate.options.check.junit, markdown: gate.options.check.markdown)
        }
        if case .incomplete(let unmeasured, let total) = conclusion.verdict, unmeasured > 0 {
            Terminal.note(
                "\(unmeasured) of \(total) launches measured nothing (no-metrics): exit status 3, "
                    + "since 0 means every launch was measured.")
        }
        return ExitCode(conclusion.verdict)
    }

    /// The start line: what the run will do, with the real iteration count (a stopping rule's cap).
    static func introduction(_ plan: RunPlan, devices: [DeviceInfo], folder: URL) -> String {
        let cold: String
        switch plan.coldMode {
        case .reinstall: cold = "cold after reinstall"
        case .reboot: cold = "cold after reboot"
        case .none: cold = "no reinstall"
        }
        let warm = plan.warmLaunches == 1 ? "1 warm launch" : "\(plan.warmLaunches) warm launches"
        let deviceText = devices.count == 1 ? "1 device" : "\(devices.count) devices"
        let iterations: String
        if let stopping = plan.stopping {
            iterations =
                "up to \(stopping.maxIterations) iterations (until the cold median is known within "
                + "±\(DecimalText.fixed(stopping.targetPrecisionPercent, maxFractionDigits: 2)) %)"
        } else if let rule = plan.pairedVerdict {
            iterations = "up to \(rule.design.maxPairs) iterations (until the pairs of the two builds decide)"
        } else if let rule = plan.untilVerdict {
            iterations =
                "up to \(rule.design.maxLaunches) iterations (until the verdict against the baseline is settled)"
        } else {
            iterations = "\(plan.iterations) iterations"
        }
        if let base = plan.against {
            return "Measuring \(plan.app.bundleID) NEW \(plan.app.versionDescription) against BASE "
                + "\(base.versionDescription) on \(deviceText), both builds each iteration (ABBA order): "
                + "\(iterations), \(cold), \(warm) each. Results: \(folder.path) (BASE in base/)"
        }
        return "Measuring \(plan.app.bundleID) \(plan.app.versionDescription) on \(deviceText): \(iterations), "
            + "\(cold), \(warm) each. Results: \(folder.path)"
    }

    /// Prints the statistics per device and launch kind (stdout), with notes on devices not fully measured, or
    /// why the exports could not be written.
    private static func printSummary(_ conclusion: RunConclusion, folder: URL) {
        if let exports = conclusion.exports {
            Terminal.output(
                TerminalSummary.render(
                    exports.summary, color: Terminal.colorEnabled(for: STDOUT_FILENO), notes: exports.folder.notes))
        } else if let failure = conclusion.exportFailure {
            Terminal.note(
                "The exports could not be written: \(failure.localizedDescription) samples.jsonl is complete; retry "
                    + "with `launchbench report \(folder.path)`.")
        }
    }
}

/// Turns the first SIGINT, SIGTERM, SIGHUP (the terminal or SSH session closed) or SIGQUIT (Ctrl-\) into a
/// graceful stop: the launches in flight are ended, everything measured is kept and the exports are written.
/// A second one quits at once.
final class Interruption: Sendable {
    /// The first signal received.
    private let signal = Locked<Int32?>(nil)
    private let sources = Locked<[any DispatchSourceSignal]>([])

    init(onFirst: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "launchbench.run.signals")
        for number in Self.handled {
            Foundation.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in
                guard let self else { return }
                let first = self.signal.withLock { signal in
                    defer { if signal == nil { signal = number } }
                    return signal == nil
                }
                if first {
                    Terminal.note("")
                    Terminal.note(
                        "Stopping: ending the launches in flight and keeping every result (press Ctrl-C again to quit now)."
                    )
                    onFirst()
                } else {
                    Terminal.note("Quitting now; samples.jsonl holds every launch finished so far.")
                    exit(ExitCode.interrupted(by: number).rawValue)
                }
            }
            source.resume()
            sources.withLock { $0.append(source) }
        }
    }

    static let handled = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// The first signal received, if any.
    var received: Int32? { signal.current }

    /// Stops listening and restores the default handlers.
    func stop() {
        for source in sources.withLock({ sources in
            defer { sources = [] }
            return sources
        }) { source.cancel() }
        for number in Self.handled { Foundation.signal(number, SIG_DFL) }
    }
}
