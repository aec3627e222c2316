import Foundation
import LaunchBench

/// The built `launchbench`, run as a user runs it: the one way the tests spawn it (`BuiltProducts.launchbench`,
/// so `Scripts/test` can point the suite at the installed release binary).
package enum LaunchbenchCLI {
    /// What a finished command left.
    package struct Outcome: Sendable {
        /// The exit status; `nil` when it had to be killed after the timeout.
        package var status: Int32?
        /// Everything written to stdout.
        package var stdoutData: Data
        /// Everything written to stderr.
        package var stderr: String
        /// stdout as text.
        package var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    }

    /// The executable's path.
    /// - Throws: `LaunchBenchError.fileNotFound` when it is not built.
    package static func executable() throws -> String {
        guard let path = BuiltProducts.launchbench else {
            throw LaunchBenchError.fileNotFound(
                path: ".build", what: "The launchbench executable (build it first: swift build --build-tests)")
        }
        return path
    }

    /// Starts `launchbench arguments`, for a test that reads its output as it comes or signals it.
    /// - Parameter environment: variables added for the child only.
    package static func start(
        _ arguments: [String], environment: [String: String] = [:], writableInput: Bool = false
    ) throws -> ChildProcess {
        try ChildProcess(
            executable: try executable(), arguments: arguments, environment: environment, writableInput: writableInput)
    }

    /// Runs `launchbench arguments` to its end (killed after `timeout`).
    package static func run(
        _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil,
        timeout: Duration = .seconds(120)
    ) async throws -> Outcome {
        let result = try await ChildProcess.run(
            try executable(), arguments, environment: environment, stdin: stdin, timeout: timeout)
        return Outcome(status: result.status, stdoutData: result.stdout, stderr: result.stderr)
    }
}
