import ArgumentParser
import LaunchBench

/// Every status launchbench exits with: the one table. `meaning` is each code's meaning, stated only here;
/// README.md's "Exit codes" table repeats the same rows word for word (ExitStatusTests compares them).
/// The numbers match package-benchmark's and CI scripts test them: never renumber a case.
enum ExitStatus: Int32, CaseIterable, Sendable {
    case success = 0
    case failure = 1
    case regression = 2
    case incomplete = 3
    case baselineNotFound = 5
    case usage = 64
    case interrupted = 130

    /// What the code means, as the README's table says it.
    var meaning: String {
        switch self {
        case .success: "ok: every launch measured / no regression"
        case .failure:
            "failure (usbmuxd unreachable, unreadable input, every device busy, the emulator cannot listen on its "
                + "socket, a results write failed — the message names the file)"
        case .regression: "regression, or an image the allow list does not name"
        case .incomplete:
            "launches failed or measured nothing (`no-metrics`), a device was busy, skipped or lost (without "
                + "`--baseline`), or too few/failed launches or no matching device to judge, a device, app, metric or its "
                + "source (pre-main, first frame, launcher) that changed since the baseline (`not comparable`), "
                + "`--until-verdict` reached its cap "
                + "unsettled, or an A/B run's (`--against`) pairs left a verdict undecided (too few pairs, or a device "
                + "lost before they decided)"
        case .baselineNotFound: "baseline not found"
        case .usage: "bad options (a value past its ceiling too, see Limits; an output path that cannot be written)"
        case .interrupted: "interrupted (Ctrl-C; 128+signal for SIGHUP 129, SIGQUIT 131, SIGTERM 143)"
        }
    }

    /// The gate's verdict as `compare` and `run --baseline` end with it.
    init(_ outcome: GateReport.Outcome) {
        switch outcome {
        case .passed: self = .success
        case .failed: self = .regression
        case .undecided: self = .incomplete
        }
    }
}

extension ExitCode {
    /// The ArgumentParser value for `status`, to throw or return from a command.
    init(_ status: ExitStatus) {
        self.init(status.rawValue)
    }

    /// How `run` and `demo` end: 128+signal when interrupted, the gate's status when it judged the run, else
    /// 0 when every launch was measured and 3 when not.
    init(_ verdict: RunVerdict) {
        switch verdict {
        case .interrupted(let signal): self = signal.map(ExitCode.interrupted(by:)) ?? ExitCode(.interrupted)
        case .judged(let outcome): self.init(ExitStatus(outcome))
        case .measured: self.init(.success)
        case .incomplete: self.init(.incomplete)
        }
    }

    /// `ExitStatus.interrupted` for any signal: 128 + its number, as shells report a process a signal ended.
    static func interrupted(by signal: Int32) -> ExitCode {
        ExitCode(128 + signal)
    }
}
