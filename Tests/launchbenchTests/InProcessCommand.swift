import ArgumentParser
import LaunchBench

@testable import launchbench

/// A command line run in this process as `LaunchBenchCommand.main` runs it, without its `exit`: the status it
/// would exit with and the message it would print after `Error: `. What a command prints goes to this
/// process's stdout and stderr, so a test names an `--output` file to read its report.
enum InProcessCommand {
    /// How the command ended.
    struct Ending {
        var status: Int32
        /// The message `main` prints, when the command failed.
        var message: String?
    }

    static func run(_ arguments: [String]) async -> Ending {
        do {
            var command = try LaunchBenchCommand.parseAsRoot(arguments)
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            return Ending(status: 0)
        } catch {
            if let failure = CommandFailure(reporting: error) {
                return Ending(status: failure.status.rawValue, message: failure.message)
            }
            let message = LaunchBenchCommand.message(for: error)
            return Ending(status: LaunchBenchCommand.exitCode(for: error).rawValue, message: message)
        }
    }
}
