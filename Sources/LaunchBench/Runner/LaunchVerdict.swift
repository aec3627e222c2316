/// How one launch is recorded, from how it ended, what it printed and what the kernel trace measured: the
/// status reflects the numbers the launch has, from whichever source.
struct LaunchVerdict: Sendable, Hashable {
    var status: SampleStatus
    var message: String?
    var exitStatus: Int?
    var signal: Int?
    /// `wall_ms`: from `continue` to the moment the launch was complete (or the app exited by itself after
    /// completing it). Only `ok` launches carry it: a `no-metrics` launch measured nothing, a failed one nothing valid.
    var wallMs: Double?

    /// `nil` when the launch was cancelled (Ctrl-C): an unfinished launch is not a sample.
    /// `kdebugMeasured`: the kernel trace gave this launch's pre-main phases (dyld reached main).
    init?(
        termination: LaunchTermination, observation: LaunchObservation, timeout: Duration,
        kdebugMeasured: Bool = false
    ) {
        let measured = !observation.record.metrics.isEmpty || kdebugMeasured
        func milliseconds(until end: ContinuousClock.Instant?) -> Double? {
            // The trace reaches the host a flush later than the frame: no wall time from it.
            guard let start = observation.launchedAt, let end, !observation.completedByKdebug else { return nil }
            return max(0, Self.milliseconds(end - start))
        }
        switch termination {
        case .endedByHarness(.cancelled):
            return nil
        case .endedByHarness(.complete):
            status = measured ? .ok : .noMetrics
            message = measured ? nil : Self.nothingMeasured
            wallMs = measured ? milliseconds(until: observation.completeAt) : nil
        case .endedByHarness(.timeout):
            status = .timeout
            message = Self.timeoutMessage(observation, timeout: timeout)
        case .exited(let code):
            exitStatus = code
            if observation.completeAt != nil && code != 0 {
                status = .exitedEarly
                message =
                    "The app exited with status \(code) right after its launch output; its figures are not "
                    + "counted (a launch that fails is not a launch to time)."
            } else if observation.completeAt != nil {
                status = measured ? .ok : .noMetrics
                message = measured ? nil : Self.nothingMeasured
                wallMs = measured ? milliseconds(until: observation.completeAt) : nil
            } else if code == 0 && kdebugMeasured {
                // An app without LaunchProbe that exits by itself after main: kdebug measured it.
                status = .ok
            } else if code == 0 && !observation.sawPartialLaunch {
                status = .noMetrics
                message =
                    "The app exited by itself (status 0) without printing dyld statistics or [launchbench] markers."
            } else {
                status = .crashed
                message = "The app exited with status \(code) before its launch was complete."
            }
        case .signaled(let number):
            status = .crashed
            signal = number
            message = "The app was killed by \(Self.signalName(number)) before the harness ended it."
        case .crashed(let number):
            status = .crashed
            signal = number
            message = "The app crashed: it stopped on \(Self.signalName(number))."
        }
    }

    static let nothingMeasured =
        "The app printed no dyld statistics and no [launchbench] markers: nothing was measured."

    private static func timeoutMessage(_ observation: LaunchObservation, timeout: Duration) -> String {
        let limit = "within \(formatSeconds(timeout)) s"
        if !observation.receivedOutput {
            return "The app printed nothing \(limit) and was killed. Raise --timeout if it is just slow."
        }
        if observation.expectedMarkers && observation.markerNames.isEmpty && observation.statisticsComplete {
            return "dyld's statistics arrived, but not the [launchbench] markers earlier launches of this app "
                + "printed, \(limit); the app was killed (it hung after pre-main?)."
        }
        if !observation.markerNames.isEmpty {
            return "The app printed markers \(observation.markerNames.joined(separator: ", ")) but no firstFrame or "
                + "done \(limit) and was killed."
        }
        return "No complete dyld statistics block and no firstFrame/done marker arrived \(limit); the app was killed. "
            + "On iOS 13 and later dyld may print nothing: add the LaunchProbe markers to the app."
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }

    static func formatSeconds(_ duration: Duration) -> String {
        let seconds = milliseconds(duration) / 1000
        return seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
    }

    /// `SIGSEGV (11)`; Darwin's numbering, which is what debugserver reports.
    static func signalName(_ number: Int) -> String {
        let names = [
            1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGEMT",
            8: "SIGFPE", 9: "SIGKILL", 10: "SIGBUS", 11: "SIGSEGV", 12: "SIGSYS", 13: "SIGPIPE", 14: "SIGALRM",
            15: "SIGTERM",
        ]
        return names[number].map { "\($0) (\(number))" } ?? "signal \(number)"
    }
}
