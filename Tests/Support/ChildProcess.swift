import Foundation

/// A running subprocess whose stdout/stderr are collected as they arrive: read stdout line by line,
/// send it signals, wait for its exit with a timeout. For CLI and external-tool tests.
public final class ChildProcess: @unchecked Sendable {
    // Mutable state is guarded by `lock`; `process` is only touched through its thread-safe methods.
    private let process = Process()
    private let lock = NSLock()
    private var stdoutBuffer = Data()
    private var stdoutConsumed = 0
    private var stderrBuffer = Data()
    private var openStreams = 2
    private var exitStatus: Int32?

    /// Starts `executable`.
    /// - Parameters:
    ///   - executable: path of the program.
    ///   - arguments: its arguments.
    ///   - environment: variables added to (or replacing) this process's environment, for the child only.
    /// - Throws: when the program cannot be started.
    public init(executable: String, arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { [weak self] finished in
            guard let self else { return }
            self.lock.lock()
            self.exitStatus = finished.terminationStatus
            self.lock.unlock()
        }
        try process.run()
        drain(out.fileHandleForReading, isStdout: true)
        drain(err.fileHandleForReading, isStdout: false)
    }

    /// The child's process id.
    public var processIdentifier: Int32 { process.processIdentifier }

    /// Everything the child wrote to stdout so far.
    public var standardOutput: String { lock.withLock { String(decoding: stdoutBuffer, as: UTF8.self) } }

    /// Everything the child wrote to stderr so far.
    public var standardError: String { lock.withLock { String(decoding: stderrBuffer, as: UTF8.self) } }

    /// The next complete stdout line (without the newline); `nil` at end of output or after `timeout`.
    public func readLine(timeout: Duration = .seconds(30)) async throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (line, finished) = lock.withLock { () -> (String?, Bool) in
                let pending = stdoutBuffer[stdoutConsumed...]
                if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    stdoutConsumed = newline + 1
                    return (String(decoding: pending[..<newline], as: UTF8.self), false)
                }
                let finished = openStreams == 0 && exitStatus != nil
                if finished, !pending.isEmpty {  // a last line without a newline
                    stdoutConsumed = stdoutBuffer.endIndex
                    return (String(decoding: pending, as: UTF8.self), false)
                }
                return (nil, finished)
            }
            if let line { return line }
            if finished || ContinuousClock.now >= deadline { return nil }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Sends a signal (e.g. `SIGINT`) to the child.
    public func send(signal number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits until the child exited and closed its output; kills it (SIGKILL) after `timeout`.
    /// - Returns: the exit status, or `nil` if it had to be killed.
    public func waitForExit(timeout: Duration = .seconds(30)) async throws -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (status, streams) = lock.withLock { (exitStatus, openStreams) }
            if let status, streams == 0 { return status }
            if ContinuousClock.now >= deadline {
                kill(process.processIdentifier, SIGKILL)
                return nil
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private func drain(_ handle: FileHandle, isStdout: Bool) {
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                lock.withLock {
                    if chunk.isEmpty {
                        openStreams -= 1
                    } else if isStdout {
                        stdoutBuffer.append(chunk)
                    } else {
                        stderrBuffer.append(chunk)
                    }
                }
                if chunk.isEmpty { return }
            }
        }
    }
}
