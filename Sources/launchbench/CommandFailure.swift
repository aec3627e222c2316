import ArgumentParser
import Foundation
import LaunchBench

/// An error a command ends with, its message and its exit status. Commands throw, never print an error:
/// `LaunchBenchCommand.main` prints the message once, as `Error: …`, and exits with the status.
struct CommandFailure: Error, LocalizedError {
    var status: ExitStatus
    /// What failed, the value at fault and the fix, without the `Error: ` prefix.
    var message: String

    var errorDescription: String? { message }

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The failure `error` ends the process with, when its status is launchbench's own: a `CommandFailure`,
    /// or a `GateError` (a baseline that is missing or holds no launches is "not found", so CI scripts tell
    /// "no baseline yet" from a failure; a current run without launches cannot be judged). `nil` for the
    /// errors ArgumentParser reports itself: bad options (with the usage), `ExitCode`, help requests, and
    /// any other error as a failure.
    init?(reporting error: any Error) {
        switch error {
        case let failure as CommandFailure:
            self = failure
        case let error as GateError:
            switch error {
            case .baselineNotFound: status = .baselineNotFound
            case .noLaunches(_, let role, _): status = role == .baseline ? .baselineNotFound : .incomplete
            }
            message = error.localizedDescription
        default:
            return nil
        }
    }
}
