import ArgumentParser
import LaunchBench

/// Every status launchbench exits with: the one table. Each case's doc comment is its meaning, stated only
/// here; README.md's "Exit codes" table repeats the same rows word for word (ExitStatusTests reads this file
/// and the README: keep exactly one `///` comment, one or more lines, right above each `case name = code`).
/// The numbers match package-benchmark's and CI scripts test them: never renumber a case.
enum ExitStatus: Int32, CaseIterable, Sendable {
    /// ok: every launch measured / no regression
    case success = 0
    /// failure (usbmuxd unreachable, unreadable input, every device busy, the emulator cannot listen on its
    /// socket, a results write failed — the message names the file)
    case failure = 1
    /// regression, or an image the allow list does not name
    case regression = 2
    /// launches failed or measured nothing (`no-metrics`), a device was busy, skipped or lost (without
    /// `--baseline`), or too few/failed launches or no matching device to judge, a device or app that changed
    /// since the baseline (`not comparable`), or `--until-verdict` reached its cap unsettled
    case incomplete = 3
    /// baseline not found
    case baselineNotFound = 5
    /// bad options
    case usage = 64
    /// interrupted (Ctrl-C; 128+signal for SIGHUP 129, SIGQUIT 131, SIGTERM 143)
    case interrupted = 130

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

    /// `ExitStatus.interrupted` for any signal: 128 + its number, as shells report a process a signal ended.
    static func interrupted(by signal: Int32) -> ExitCode {
        ExitCode(128 + signal)
    }
}
