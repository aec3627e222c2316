import Foundation
import LaunchBench

/// One running kdebug tap helper (a `HelperProcess`): its stdout read line by line into the session's chunk
/// stream, its stderr in a log file; closing its stdin stops the session.
final class KdebugTapProcess: Sendable {
    private let helper: HelperProcess
    private let reader: KdebugTapReader

    private init(helper: HelperProcess, reader: KdebugTapReader) {
        self.helper = helper
        self.reader = reader
    }

    /// Starts `python arguments…` with stdin and stdout as pipes and stderr appended to `log`.
    /// - Parameter environment: the helper's whole environment (`Pymobiledevice3Setup.helperEnvironment()`).
    static func start(udid: String, python: String, arguments: [String], environment: [String: String], log: URL) throws
        -> KdebugTapProcess
    {
        let sender = Locked<HelperProcess?>(nil)
        let control = KdebugTapProcessControl(udid: udid) { line in
            guard let helper = sender.current else { throw HelperProcess.Failure.hung }
            try helper.send(line)
        }
        let reader = KdebugTapReader(udid: udid, logURL: log, processControl: control)
        do {
            let helper = try HelperProcess.start(
                executable: python, arguments: arguments, environment: environment, log: log, input: true,
                output: .lines(line: { reader.handle($0) }, exit: { reader.exited(status: $0) }))
            sender.withLock { $0 = helper }
            return KdebugTapProcess(helper: helper, reader: reader)
        } catch HelperProcess.Failure.cannotStart {
            throw KdebugTapError.noPython(executable: python, reason: "it cannot be started")
        }
    }

    /// Waits for the session to run, then hands out its chunks.
    /// - Throws: ``KdebugTapError`` when the helper reports a failure, exits, or does not start in time.
    func feed(startTimeout: Duration) async throws -> KdebugFeed {
        do {
            let timebase = try await helper.awaitReady(within: startTimeout, every: .milliseconds(20)) {
                try reader.timebase()
            }
            return KdebugFeed(timebase: timebase, chunks: reader.chunks, processControl: reader.processControl) {
                [self] in await self.stop()
            }
        } catch HelperProcess.Failure.exited(let status) {
            throw KdebugTapError.exited(
                udid: reader.udid, status: status, log: reader.logTail(), logPath: helper.logURL.path)
        } catch HelperProcess.Failure.hung {
            throw KdebugTapError.hung(
                udid: reader.udid, seconds: startTimeout.totalSeconds, logPath: helper.logURL.path)
        }
    }

    /// Closes the helper's stdin (it stops the session and exits), then terminates it if it has not gone
    /// within 2 s, and kills it 2 s later. Idempotent.
    func stop() async {
        reader.stopping()
        await helper.stop()
    }
}

/// What a kdebug helper says on stdout, one JSON object a line (`KdebugTapScript`): `ready` with the timebase,
/// `chunk`s into the feed, `error` with a kind, process control's answers and events to `processControl`; other
/// types (notices) are in its log only.
final class KdebugTapReader: Sendable {
    let udid: String
    let logURL: URL
    let processControl: KdebugTapProcessControl
    let chunks: AsyncThrowingStream<[UInt8], any Error>
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private let state = Locked(State())

    private struct State {
        var timebase: MachTimebase?
        var failure: KdebugTapError?
        var stopped = false
    }

    init(udid: String, logURL: URL, processControl: KdebugTapProcessControl) {
        (chunks, continuation) = AsyncThrowingStream.makeStream(bufferingPolicy: .unbounded)
        self.udid = udid
        self.logURL = logURL
        self.processControl = processControl
    }

    /// The session's timebase once it runs, `nil` before.
    /// - Throws: the failure the helper reported (or its exit before the session ran).
    func timebase() throws -> MachTimebase? {
        let now = state.withLock { ($0.timebase, $0.failure) }
        if let failure = now.1 { throw failure }
        return now.0
    }

    /// launchbench is ending the helper: its exit ends the feed without an error.
    func stopping() {
        state.withLock { $0.stopped = true }
    }

    func handle(_ line: Data) {
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
            _ = processControl.handle(object)  // else a notice: the log has it
        }
    }

    /// The helper exited after its last line: before the session ran that is the failure; after it, a non-zero
    /// status that launchbench did not ask for ends the feed with an error.
    func exited(status: Int32) {
        processControl.helperEnded(
            "the kdebug helper of \(udid) died (status \(status)\(status == 9 ? ": SIGKILL" : ""); its log is "
                + "\(logURL.path))")
        let (ready, stopped) = state.withLock { ($0.timebase != nil, $0.stopped) }
        if !ready {
            let tail = logTail()
            state.withLock {
                if $0.failure == nil {
                    $0.failure = .exited(udid: udid, status: status, log: tail, logPath: logURL.path)
                }
            }
        }
        if ready && !stopped && status != 0 {
            continuation.finish(
                throwing: state.current.failure
                    ?? .lost(udid: udid, message: "the kdebug tap exited with status \(status)"))
        } else {
            continuation.finish()
        }
    }

    /// The last lines the helper wrote to its log, for an error text.
    func logTail() -> String {
        HelperLog.tail(of: logURL, lines: 3, characters: 500)
    }
}
