import Foundation
import LaunchBench

/// A running subprocess whose stdout/stderr are collected as they arrive: read stdout line by line,
/// send it signals, wait for its exit with a timeout. For CLI and external-tool tests.
package final class ChildProcess: @unchecked Sendable {
    // @unchecked only for `process` (Sendable on Linux and in recent macOS SDKs, not assumed for older
    // ones): after `run()` it is only asked for its pid. Everything that changes is in `state`.
    private let process = Process()

    private struct State {
        var stdoutBuffer = Data()
        var stdoutConsumed = 0
        var stderrBuffer = Data()
        var openStreams = 2
        var exitStatus: Int32?
    }

    private let state = Locked(State())
    /// Rung at each chunk of output, each stream closed and the exit: what the waits below wake on.
    private let changes = ChangeSignal()
    /// The child's stdin, with `writableInput` (else /dev/null).
    private let input: FileHandle?

    /// Writes `line` and a newline to the child's stdin (started with `writableInput: true`).
    package func send(line: String) throws {
        try input?.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Starts `executable`.
    /// - Parameters:
    ///   - executable: path of the program.
    ///   - arguments: its arguments.
    ///   - environment: variables added to (or replacing) this process's environment, for the child only.
    /// - Throws: when the program cannot be started.
    package init(
        executable: String, arguments: [String], environment: [String: String] = [:], writableInput: Bool = false
    ) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if writableInput {
            let input = Pipe()
            process.standardInput = input
            self.input = input.fileHandleForWriting
        } else {
            process.standardInput = FileHandle.nullDevice
            self.input = nil
        }
        process.terminationHandler = { [state, changes] finished in
            state.withLock { $0.exitStatus = finished.terminationStatus }
            changes.notify()
        }
        try process.run()
        drain(out.fileHandleForReading, isStdout: true)
        drain(err.fileHandleForReading, isStdout: false)
    }

    /// The child's process id.
    package var processIdentifier: Int32 { process.processIdentifier }

    /// Everything the child wrote to stdout so far.
    package var standardOutput: String { state.withLock { String(decoding: $0.stdoutBuffer, as: UTF8.self) } }

    /// Everything the child wrote to stdout so far, as bytes.
    package var standardOutputData: Data { state.withLock { $0.stdoutBuffer } }

    /// Everything the child wrote to stderr so far.
    package var standardError: String { state.withLock { String(decoding: $0.stderrBuffer, as: UTF8.self) } }

    /// Returns once the child's output so far (or its exit) satisfies `condition`, checked at each change.
    /// - Throws: `PollingTimeout` after `timeout`, naming `what` was awaited.
    package func waitForOutput(
        _ what: String, timeout: Duration = .seconds(60), _ condition: (ChildProcess) -> Bool
    ) async throws {
        try await changes.wait(until: what, timeout: timeout) { condition(self) }
    }

    /// Whether the child exited and closed its output.
    private var isFinished: Bool { state.withLock { $0.exitStatus != nil && $0.openStreams == 0 } }

    /// The next complete stdout line (without the newline); `nil` at end of output or after `timeout`.
    package func readLine(timeout: Duration = .seconds(30)) async throws -> String? {
        var line: String?
        var finished = false
        do {
            try await changes.wait(until: "a line on stdout", timeout: timeout) {
                (line, finished) = nextLine()
                return line != nil || finished
            }
        } catch is PollingTimeout {
            return nil
        }
        return line
    }

    /// Takes the next complete stdout line, if there is one; and whether no more output can come.
    private func nextLine() -> (line: String?, finished: Bool) {
        state.withLock { state -> (String?, Bool) in
            let pending = state.stdoutBuffer[state.stdoutConsumed...]
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                state.stdoutConsumed = newline + 1
                return (String(decoding: pending[..<newline], as: UTF8.self), false)
            }
            let finished = state.openStreams == 0 && state.exitStatus != nil
            if finished, !pending.isEmpty {  // a last line without a newline
                state.stdoutConsumed = state.stdoutBuffer.endIndex
                return (String(decoding: pending, as: UTF8.self), false)
            }
            return (nil, finished)
        }
    }

    /// Writes `text` to the child's stdin and closes it (started with `writableInput: true`).
    package func finishInput(with text: String = "") throws {
        try input?.write(contentsOf: Data(text.utf8))
        try input?.close()
    }

    /// Runs a program to its end without blocking a thread (tests share a cooperative pool as wide as the
    /// machine has cores: a blocking wait there stalls every other test's timers).
    /// - Returns: the exit status (`nil` when it had to be killed after `timeout`), stdout and stderr.
    package static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil,
        timeout: Duration = .seconds(120)
    ) async throws -> (status: Int32?, stdout: Data, stderr: String) {
        let child = try ChildProcess(
            executable: executable, arguments: arguments, environment: environment, writableInput: stdin != nil)
        if let stdin { try child.finishInput(with: stdin) }
        let status = try await child.waitForExit(timeout: timeout)
        return (status, child.standardOutputData, child.standardError)
    }

    /// Sends a signal (e.g. `SIGINT`) to the child.
    package func send(signal number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits until the child exited and closed its output; kills it (SIGKILL) after `timeout`.
    /// - Returns: the exit status, or `nil` if it had to be killed.
    package func waitForExit(timeout: Duration = .seconds(30)) async throws -> Int32? {
        do {
            try await changes.wait(until: "the child exited", timeout: timeout) { isFinished }
        } catch is PollingTimeout {
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        return state.withLock { $0.exitStatus }
    }

    private func drain(_ handle: FileHandle, isStdout: Bool) {
        Thread.detachNewThread { [state, changes] in
            while true {
                let chunk = handle.availableData
                state.withLock { state in
                    if chunk.isEmpty {
                        state.openStreams -= 1
                    } else if isStdout {
                        state.stdoutBuffer.append(chunk)
                    } else {
                        state.stderrBuffer.append(chunk)
                    }
                }
                changes.notify()
                if chunk.isEmpty { return }
            }
        }
    }
}
