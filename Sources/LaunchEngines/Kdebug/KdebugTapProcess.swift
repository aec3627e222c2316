import Foundation
import LaunchBench

/// One running kdebug tap helper: its stdout read on a thread of its own, line by line, into the session's
/// chunk stream; its stderr in a log file; closing its stdin stops the session.
final class KdebugTapProcess: @unchecked Sendable {
    // @unchecked: every stored property is a constant; Process and FileHandle are safe to call across threads
    // for what is done here (terminate, isRunning, close), and `state` is locked.
    private let process: Process
    private let input: FileHandle
    private let logURL: URL
    private let udid: String
    private let state = Locked(State())

    private struct State {
        var timebase: MachTimebase?
        var failure: KdebugTapError?
        var stopped = false
    }

    private let chunks: AsyncThrowingStream<[UInt8], any Error>
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation

    private init(process: Process, input: FileHandle, logURL: URL, udid: String) {
        (chunks, continuation) = AsyncThrowingStream.makeStream(bufferingPolicy: .unbounded)
        self.udid = udid
        self.process = process
        self.input = input
        self.logURL = logURL
    }

    /// Starts `python arguments…` with stdin and stdout as pipes and stderr appended to `log`.
    static func start(udid: String, python: String, arguments: [String], environment: [String: String], log: URL) throws
        -> KdebugTapProcess
    {
        try? FileManager.default.createDirectory(at: log.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: log.path) {
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        }
        let logHandle = try FileHandle(forWritingTo: log)
        logHandle.seekToEndOfFile()
        logHandle.write(Data("$ \(python) \(arguments.joined(separator: " "))\n".utf8))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        process.environment = environment
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = logHandle
        do {
            try process.run()
        } catch {
            throw KdebugTapError.noPython(executable: python)
        }
        try? logHandle.close()
        SidecarRegistry.add(process.processIdentifier)
        return KdebugTapProcess(process: process, input: stdin.fileHandleForWriting, logURL: log, udid: udid)
            .reading(stdout.fileHandleForReading)
    }

    /// Reads the helper's stdout on a thread of its own (its reads block).
    private func reading(_ output: FileHandle) -> KdebugTapProcess {
        let thread = Thread { [self] in self.readLines(output) }
        thread.name = "launchbench kdebug tap"
        thread.start()
        return self
    }

    /// Waits for the session to run, then hands out its chunks.
    /// - Throws: ``KdebugTapError`` when the helper reports a failure, exits, or does not start in time.
    func feed(startTimeout: Duration) async throws -> KdebugFeed {
        let deadline = ContinuousClock.now + startTimeout
        while true {
            let now = state.withLock { ($0.timebase, $0.failure) }
            if let failure = now.1 {
                await stop()
                throw failure
            }
            if let timebase = now.0 {
                return KdebugFeed(timebase: timebase, chunks: chunks) { [self] in await self.stop() }
            }
            if ContinuousClock.now >= deadline {
                await stop()
                throw KdebugTapError.hung(udid: udid, seconds: startTimeout.totalSeconds, logPath: logURL.path)
            }
            do {
                try await Task.sleep(for: .milliseconds(20))
            } catch {
                await stop()
                throw error
            }
        }
    }

    private func readLines(_ output: FileHandle) {
        var pending = Data()
        while true {
            let data = output.availableData
            if data.isEmpty { break }
            pending.append(data)
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = pending[pending.startIndex..<newline]
                pending.removeSubrange(pending.startIndex...newline)
                handle(line)
            }
        }
        process.waitUntilExit()
        SidecarRegistry.remove(process.processIdentifier)
        let (ready, stopped) = state.withLock { ($0.timebase != nil, $0.stopped) }
        if !ready {
            state.withLock {
                if $0.failure == nil {
                    $0.failure = .exited(
                        udid: udid, status: process.terminationStatus, log: logTail(), logPath: logURL.path)
                }
            }
        }
        if ready && !stopped && process.terminationStatus != 0 {
            continuation.finish(
                throwing: state.current.failure
                    ?? .lost(udid: udid, message: "the kdebug tap exited with status \(process.terminationStatus)"))
        } else {
            continuation.finish()
        }
    }

    private func handle(_ line: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
            let type = object["type"] as? String
        else { return }
        switch type {
        case "chunk":
            if let text = object["data"] as? String, let bytes = Data(base64Encoded: text) {
                continuation.yield([UInt8](bytes))
            }
        case "ready":
            let numer = (object["numer"] as? NSNumber)?.uint32Value ?? 0
            let denom = (object["denom"] as? NSNumber)?.uint32Value ?? 0
            let timebase = MachTimebase(numer: numer, denom: denom) ?? .iPhone
            state.withLock { $0.timebase = timebase }
        case "error":
            let error = KdebugTapError.reported(
                kind: object["kind"] as? String ?? "", message: object["message"] as? String ?? "", udid: udid)
            state.withLock { $0.failure = $0.failure ?? error }
        default:
            break  // notices: the log has them
        }
    }

    /// The last lines the helper wrote to its log, for an error text.
    private func logTail() -> String {
        guard let text = try? String(contentsOf: logURL, encoding: .utf8) else { return "" }
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("$ ") }
        return String(lines.suffix(3).joined(separator: " | ").suffix(500))
    }

    /// Closes the helper's stdin (it stops the session and exits), then terminates it if it has not gone
    /// within 2 s, and kills it 2 s later. Idempotent.
    func stop() async {
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        try? input.close()
        for step in 0..<2 {
            let deadline = ContinuousClock.now + .seconds(2)
            while process.isRunning && ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            guard process.isRunning else { return }
            if step == 0 { process.terminate() } else { kill(process.processIdentifier, SIGKILL) }
        }
    }
}
