import Foundation
import LaunchBench

/// A helper program that runs beside a run: the pymobiledevice3 debugserver sidecar, the kdebug helper. One
/// type does what both need: the command line at the head of the helper's log, registration so that none
/// outlives launchbench (`HelperRegistry`), a bounded wait until the helper says it is ready, and a stop that
/// asks first (stdin closed, then SIGTERM) and then insists (SIGKILL), returning once the helper is gone.
final class HelperProcess: @unchecked Sendable {
    // @unchecked: every stored property is a constant; Process and FileHandle are safe to call across threads for
    // what is done here (isRunning, terminate, close), and `exitStatus` and `stopped` are locked.

    /// Where the helper's stdout goes.
    enum Output {
        /// Into its log, with its stderr.
        case log
        /// Each line (without its newline) to `line` as it arrives, on a thread of its own; once stdout has
        /// ended and the helper has exited, its status to `exit`. Its stderr goes to its log.
        case lines(line: @Sendable (Data) -> Void, exit: @Sendable (Int32) -> Void)
    }

    /// Why a helper did not become ready.
    enum Failure: Error {
        /// The program could not be started.
        case cannotStart(any Error)
        /// It exited first, with this status.
        case exited(status: Int32)
        /// It was not ready in time, and has been stopped.
        case hung
    }

    /// The helper's log: the command line, then what it printed.
    let logURL: URL
    private let process: Process
    /// The helper's stdin, when it is a pipe: closing it asks the helper to end.
    private let input: FileHandle?
    /// Set once stdout is drained and the helper has exited (`.lines`), so an exit is seen after every line.
    private let drainedExit: Locked<Int32?>?
    private let stopped = Locked(false)

    private init(process: Process, logURL: URL, input: FileHandle?, drainsOutput: Bool) {
        self.process = process
        self.logURL = logURL
        self.input = input
        drainedExit = drainsOutput ? Locked(nil) : nil
    }

    /// Starts `executable arguments…` with `environment` (the whole environment), its command line and its stderr
    /// appended to `log` (created when missing), stdout as `output` says, stdin a pipe when `input` (else empty).
    /// - Throws: `Failure.cannotStart` when the program cannot be run; the file error when the log cannot be
    ///   opened.
    static func start(
        executable: String, arguments: [String], environment: [String: String], log: URL, input: Bool = false,
        output: Output = .log
    ) throws -> HelperProcess {
        try? FileManager.default.createDirectory(at: log.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: log.path) {
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        }
        let logHandle = try FileHandle(forWritingTo: log)
        defer { try? logHandle.close() }
        logHandle.seekToEndOfFile()
        logHandle.write(Data("$ \(executable) \(arguments.joined(separator: " "))\n".utf8))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let stdin = input ? Pipe() : nil
        if let stdin { process.standardInput = stdin } else { process.standardInput = FileHandle.nullDevice }
        var stdout: Pipe?
        if case .lines = output { stdout = Pipe() }
        if let stdout { process.standardOutput = stdout } else { process.standardOutput = logHandle }
        process.standardError = logHandle
        do {
            try process.run()
        } catch {
            throw Failure.cannotStart(error)
        }
        HelperRegistry.add(process.processIdentifier)
        let helper = HelperProcess(
            process: process, logURL: log, input: stdin?.fileHandleForWriting, drainsOutput: stdout != nil)
        if case .lines(let line, let exit) = output, let stdout {
            let thread = Thread { helper.readLines(stdout.fileHandleForReading, line: line, exit: exit) }
            thread.name = "launchbench helper \(URL(fileURLWithPath: executable).lastPathComponent)"
            thread.start()
        }
        return helper
    }

    var processIdentifier: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// The exit status once the helper is gone (with `.lines`, once every line was handed out), else `nil`.
    private var exitStatus: Int32? {
        if let drainedExit { return drainedExit.current }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// Asks `ready` every `interval` until it returns a value, at most for `timeout`. Whatever ends the wait
    /// otherwise stops the helper first: `ready` throwing (that error), the helper exiting (`Failure.exited`,
    /// unless `ready` answers once more after the exit), the time running out (`Failure.hung`), cancellation.
    func awaitReady<Ready>(
        within timeout: Duration, every interval: Duration, _ ready: () throws -> Ready?
    ) async throws -> Ready {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                if let value = try ready() { return value }
                if let status = exitStatus {
                    // What the helper said before it exited (an error line) counts.
                    if let value = try ready() { return value }
                    throw Failure.exited(status: status)
                }
                if ContinuousClock.now >= deadline { throw Failure.hung }
                try await Task.sleep(for: interval)
            } catch {
                await stop()
                throw error
            }
        }
    }

    /// Writes `line` and a newline to the helper's stdin (started with `input`): a command for a helper that
    /// reads them, as the kdebug helper's processcontrol does.
    /// - Throws: the write's error (the helper is gone, or stdin was closed by `stop()`).
    func send(_ line: Data) throws {
        guard let input else { throw Failure.cannotStart(CocoaError(.fileWriteUnknown)) }
        try input.write(contentsOf: line + Data([0x0A]))
    }

    /// Closes stdin (a helper that reads it ends on its own) and waits up to 2 s, then SIGTERM and 2 s, then
    /// SIGKILL and 2 s; returns once it is gone (reaped), at most ~6 s. It waits with `Task.sleep`, never blocking
    /// a thread of the cooperative pool: a sidecar tearing down its tunnel can take seconds, and a 2-core
    /// machine has two such threads. Idempotent.
    func stop() async {
        let first = stopped.withLock { stopped -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        let pid = process.processIdentifier
        if let input {
            try? input.close()
            await waitForExit(upTo: .seconds(2))
        }
        if process.isRunning {
            process.terminate()
            await waitForExit(upTo: .seconds(2))
        }
        if process.isRunning {
            kill(pid, SIGKILL)
            await waitForExit(upTo: .seconds(2))
        }
        HelperRegistry.remove(pid)
    }

    private func waitForExit(upTo limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        while process.isRunning && ContinuousClock.now < deadline {
            // Not cancellable: a run that is being cancelled still waits for its helpers to go.
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Hands out stdout line by line (its reads block, hence a thread), then the exit status.
    private func readLines(_ output: FileHandle, line: (Data) -> Void, exit: (Int32) -> Void) {
        var pending = Data()
        while true {
            let data = output.availableData
            if data.isEmpty { break }
            pending.append(data)
            while let newline = pending.firstIndex(of: 0x0A) {
                let text = pending[pending.startIndex..<newline]
                pending.removeSubrange(pending.startIndex...newline)
                line(Data(text))
            }
        }
        process.waitUntilExit()
        HelperRegistry.remove(process.processIdentifier)
        exit(process.terminationStatus)
        drainedExit?.withLock { $0 = process.terminationStatus }
    }
}

/// The helpers alive in this process, killed at `exit()` (a second Ctrl-C quits with `exit`), so none
/// outlives launchbench. (A SIGKILL of launchbench itself cannot be caught: `HelperParentWatch` ends them.)
enum HelperRegistry {
    private static let pids = Locked<Set<Int32>>([])
    private static let installed = Locked(false)

    static func add(_ pid: Int32) {
        pids.withLock { _ = $0.insert(pid) }
        let first = installed.withLock { installed -> Bool in
            defer { installed = true }
            return !installed
        }
        if first { atexit { HelperRegistry.killAll() } }
    }

    static func remove(_ pid: Int32) {
        pids.withLock { _ = $0.remove(pid) }
    }

    /// The pids alive now (for tests).
    static var alive: Set<Int32> { pids.current }

    static func killAll() {
        for pid in pids.withLock({ $0 }) { kill(pid, SIGKILL) }
    }
}
