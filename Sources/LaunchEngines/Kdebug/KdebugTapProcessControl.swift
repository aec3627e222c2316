import Foundation
import LaunchBench

/// Process control through a kdebug helper (`KdebugTapScript`): commands on its stdin, one JSON object a line,
/// answers and the launched processes' events on its stdout beside the kdebug chunks. A process's events can
/// come before the answer that names its pid; they wait for it. Its output can also come after its termination
/// notice (the phone relays the two separately, with no order promised): its stream stays open for that output
/// until the next launch.
final class KdebugTapProcessControl: ProcessControl {
    /// How long a command waits for the helper's answer (a launch waits for the phone).
    static let answerTimeout: Duration = .seconds(60)
    /// Events kept for pids no launch has claimed yet (a phone's output before the launch's answer).
    static let earlyLimit = 4096

    private let udid: String
    private let send: @Sendable (Data) throws -> Void
    private let state = Locked(State())

    private enum Answer: Sendable {
        case pid(Int)
        case done
        /// The helper's message, and the phone's NSError when it sent one.
        case refused(String, ProcessControlRefusal?)
    }

    private struct State {
        var nextID = 0
        var answers: [Int: CheckedContinuation<Answer, any Error>] = [:]
        var processes: [Int: AsyncStream<ProcessEvent>.Continuation] = [:]
        /// The pids in `processes` whose termination notice arrived (their late output is still delivered).
        var ended: Set<Int> = []
        var early: [Int: [ProcessEvent]] = [:]
        var earlyCount = 0
        var gone: String?
    }

    /// - Parameter send: writes one line to the helper's stdin.
    init(udid: String, send: @escaping @Sendable (Data) throws -> Void) {
        self.udid = udid
        self.send = send
    }

    func launch(_ request: LaunchRequest) async throws -> ControlledProcess {
        var environment: [String: String] = [:]
        for variable in request.environment { environment[variable.name] = variable.value }  // the last one wins
        let answer = try await ask([
            "cmd": "launch", "bundle": request.bundleID, "args": request.arguments, "env": environment,
            "kill_existing": true,
        ])
        if case .refused(let message, let refusal) = answer {
            throw ProcessControlError(
                .refused, refusal?.message(device: udid, bundleID: request.bundleID) ?? message, refusal: refusal)
        }
        guard case .pid(let pid) = answer, pid > 0 else {
            throw ProcessControlError(.refused, "process control on \(udid) answered the launch without a pid")
        }
        let (events, continuation) = AsyncStream.makeStream(of: ProcessEvent.self, bufferingPolicy: .unbounded)
        let finished = state.withLock { state -> [AsyncStream<ProcessEvent>.Continuation] in
            // The ended processes' late output belongs to no launch in flight any more.
            let finished = state.ended.compactMap { state.processes.removeValue(forKey: $0) }
            state.ended.removeAll()
            // The events that came first go out under the lock that publishes the stream, so the reader's next
            // event (a termination notice) cannot overtake them.
            for event in state.early[pid] ?? [] {
                continuation.yield(event)
                if case .terminated = event { state.ended.insert(pid) }
            }
            state.early.removeAll()  // what other pids said belongs to no launch in flight
            state.earlyCount = 0
            if let gone = state.gone {
                continuation.yield(.controlGone(gone))
                continuation.finish()
            } else {
                state.processes[pid] = continuation
            }
            return finished
        }
        for stream in finished { stream.finish() }
        return ControlledProcess(pid: pid, events: events)
    }

    func kill(_ pid: Int) async throws {
        if case .refused(let message, _) = try await ask(["cmd": "kill", "pid": pid]) {
            throw ProcessControlError(.refused, message)
        }
    }

    /// Sends a command and waits for the answer with its id (a refusal is an answer).
    private func ask(_ command: [String: Any]) async throws -> Answer {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        var line = command
        line["id"] = id
        let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
        let answer = try await withCheckedThrowingContinuation { continuation in
            let gone = state.withLock { state -> String? in
                if state.gone == nil { state.answers[id] = continuation }
                return state.gone
            }
            if let gone { return continuation.resume(throwing: ProcessControlError(.lost, gone)) }
            do {
                try send(data)
            } catch {
                fail(id, ProcessControlError(.lost, "the kdebug helper of \(udid) no longer reads commands: \(error)"))
                return
            }
            let timeout = Self.answerTimeout
            let late = ProcessControlError(.lost, "the kdebug helper of \(udid) did not answer within \(timeout)")
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                self?.fail(id, late)
            }
        }
        return answer
    }

    private func fail(_ id: Int, _ error: ProcessControlError) {
        state.withLock { $0.answers.removeValue(forKey: id) }?.resume(throwing: error)
    }

    /// A line of the helper's stdout that is process control's (`false` for the others).
    func handle(_ object: [String: Any]) -> Bool {
        let number = { (key: String) in (object[key] as? NSNumber)?.intValue }
        switch object["type"] as? String {
        case "launched", "pid":
            answer(number("id"), .pid(number("pid") ?? 0))
        case "killed":
            answer(number("id"), .done)
        case "refused":
            let text = object["message"] as? String ?? ""
            // The phone's NSError and those under it, outermost first (the helper's `errors`).
            let chain = (object["errors"] as? [[String: Any]] ?? []).map { level in
                ProcessControlRefusal.Level(
                    domain: level["domain"] as? String, code: (level["code"] as? NSNumber)?.intValue,
                    codeName: level["code_name"] as? String, description: level["description"] as? String,
                    reason: level["reason"] as? String)
            }
            let refusal = chain.isEmpty ? nil : ProcessControlRefusal(chain: chain)
            answer(
                number("id"),
                .refused(text.isEmpty ? "process control refused (\(object["error"] ?? ""))" : text, refusal))
        case "output":
            if let pid = number("pid"), let text = object["text"] as? String {
                deliver(.output(Array(text.utf8)), pid: pid)
            }
        case "terminated":
            if let pid = number("pid") {
                deliver(.terminated(exitCode: number("exit_code"), signal: number("signal")), pid: pid)
            }
        case "control-lost":
            streamsLost("process control's channel closed (\(object["reason"] as? String ?? ""))")
        default:
            return false
        }
        return true
    }

    private func answer(_ id: Int?, _ answer: Answer) {
        guard let id else { return }
        state.withLock { $0.answers.removeValue(forKey: id) }?.resume(returning: answer)
    }

    private func deliver(_ event: ProcessEvent, pid: Int) {
        let continuation = state.withLock { state -> AsyncStream<ProcessEvent>.Continuation? in
            if let continuation = state.processes[pid] {
                if case .terminated = event { state.ended.insert(pid) }
                return continuation
            }
            if state.earlyCount < Self.earlyLimit {
                state.early[pid, default: []].append(event)
                state.earlyCount += 1
            }
            return nil
        }
        continuation?.yield(event)
    }

    /// The processcontrol channel closed while the helper runs on: every process's stream says so (the next
    /// command reopens the channel).
    private func streamsLost(_ reason: String) {
        let processes = state.withLock { state in
            defer {
                state.processes.removeAll()
                state.ended.removeAll()
                state.early.removeAll()
                state.earlyCount = 0
            }
            return Array(state.processes.values)
        }
        for process in processes {
            process.yield(.lost(reason))
            process.finish()
        }
    }

    /// The helper is gone: every waiting command fails and every process's stream says so.
    func helperEnded(_ reason: String) {
        let (answers, processes) = state.withLock { state in
            state.gone = state.gone ?? reason
            defer {
                state.answers.removeAll()
                state.processes.removeAll()
                state.ended.removeAll()
            }
            return (Array(state.answers.values), Array(state.processes.values))
        }
        for answer in answers { answer.resume(throwing: ProcessControlError(.lost, reason)) }
        for process in processes {
            process.yield(.controlGone(reason))  // its trace is gone too: the launch cannot wait for kdebug
            process.finish()
        }
    }
}

/// The process control of whichever helper currently serves a device (`KdebugTapRestarts` replaces a helper
/// that died); a launch under way when it died has lost its stream.
final class ProcessControlRelay: ProcessControl {
    /// How long a launch that meets a dead helper waits for its replacement before it is refused.
    static let restartWait: Duration = .seconds(60)
    private let current: Locked<(control: (any ProcessControl)?, generation: Int)>

    init(_ first: (any ProcessControl)?) {
        current = Locked((first, 0))
    }

    func replace(with next: (any ProcessControl)?) {
        current.withLock { $0 = (next, $0.generation + 1) }
    }

    func launch(_ request: LaunchRequest) async throws -> ControlledProcess {
        let (control, generation) = current.current
        guard let control else { throw ProcessControlError(.lost, "the kdebug helper is gone") }
        do {
            return try await control.launch(request)
        } catch let error as ProcessControlError where error.kind == .lost {
            // The helper died just before: the next launch waits (bounded) for the one restarted in its place.
            let deadline = ContinuousClock.now + Self.restartWait
            while ContinuousClock.now < deadline, !Task.isCancelled {
                if current.current.generation != generation, let next = current.current.control {
                    return try await next.launch(request)
                }
                try? await Task.sleep(for: .milliseconds(50))
            }
            throw error
        }
    }

    func kill(_ pid: Int) async throws {
        guard let control = current.current.control else {
            throw ProcessControlError(.lost, "the kdebug helper is gone")
        }
        try await control.kill(pid)
    }
}
