/// The launch step through process control, with no debugger attached: the app starts at once, its output comes
/// back as output events and its end as a termination notice; the harness ends it with SIGKILL. A death by a
/// signal it did not get from the harness is a crash. When the stream of events is lost mid-launch, the observer
/// is told (``LaunchObserver/outputLost(_:)``) and the launch goes on until kdebug completes it or `--timeout`
/// (its later markers are missing; its kdebug numbers are kept; the sample says so). The phone relays the output
/// and the termination notice separately, in no promised order: output that comes after the notice still counts,
/// awaited for a moment while the launch is not complete. A refusal that clears on its own (the last instance still
/// terminating, the phone busy or locked for a moment) is tried again after ``retryDelays``; wall time and
/// `--timeout` count from the attempt the phone accepted.
struct ProcessControlLauncher: AppLauncher {
    let control: any ProcessControl
    /// The waits before each new attempt after a transient refusal: go-ios's four retries 0.5 s apart
    /// (commit 77e57ca, PR #763), so a refusal that outlasts 2 s is reported with its cause. Every warm launch
    /// follows a kill of the previous instance, the moment such refusals come.
    var retryDelays: [Duration] = Array(repeating: .milliseconds(500), count: 4)
    /// How long a phone that stays locked is waited for once the retries are spent, asked again every
    /// ``lockedPoll``: a run with `--require` waits for the phone's conditions anyway, so `--require-wait` and
    /// `--require-poll`; zero (no wait) without it.
    var lockedWait: Duration = .zero
    var lockedPoll: Duration = .seconds(10)
    /// How long a kill waits for the phone's termination notice before the launch returns anyway.
    var killWait: Duration = .seconds(5)
    /// How long after the termination notice output is awaited while the launch is not complete (a crash, an early
    /// exit, or markers still on their way). The lag between the two on a phone is unmeasured.
    var lateOutputWait: Duration = .milliseconds(500)
    /// How often the observer is asked whether the launch is over when nothing arrives (its grace ends between
    /// two asks, so this is added to such a launch's wall time at worst); an event wakes the launch at once.
    var tick: Duration = .milliseconds(5)
    var method: LaunchMethod { .processControl }

    func launch(_ request: LaunchRequest, on udid: String, observer: any LaunchObserver) async throws
        -> LaunchTermination
    {
        let process = try await launchRetrying(request, on: udid, observer: observer)
        observer.launched(at: .now)
        let inbox = Inbox(process.events)
        defer { inbox.close() }
        var lost = false
        while true {
            switch inbox.take(into: observer) {
            case .ended(let termination):
                if await !inbox.drainLateOutput(into: observer, upTo: lateOutputWait),
                    case .exited(status: 0) = termination
                {
                    // A clean exit before the launch's output was complete: markers sent later are lost, and
                    // the sample must say so rather than pass as a launch without markers.
                    observer.outputLost(
                        "the app exited and no more output came within \(lateOutputWait) after its termination "
                            + "notice")
                }
                return termination
            case .lost(let reason) where !lost:
                lost = true
                observer.outputLost(reason)
            case .gone(let reason):
                // Its trace went with it: waiting for kdebug or --timeout would only blame the app.
                throw ProcessControlError(
                    .lost,
                    "\(reason) while this launch ran: its output and its trace went with the helper, so the launch "
                        + "ends unmeasured; launchbench restarts the helper for the next launch.")
            case .running, .lost: break
            }
            if let stop = observer.shouldEnd(at: .now) ?? (Task.isCancelled ? .cancelled : nil) {
                try? await control.kill(process.pid)
                await inbox.waitForEnd(upTo: killWait)
                return .endedByHarness(stop)
            }
            await inbox.waitForEvent(upTo: tick)
        }
    }

    /// Launches, trying again after each transient refusal while ``retryDelays`` last; a refusal that persists is
    /// thrown with its cause and the number of attempts.
    private func launchRetrying(_ request: LaunchRequest, on udid: String, observer: any LaunchObserver) async throws
        -> ControlledProcess
    {
        var attempt = 0
        let start = ContinuousClock.now
        while true {
            do {
                return try await control.launch(request)
            } catch let error as ProcessControlError where error.refusal?.cause.isTransient == true {
                guard let refusal = error.refusal, !Task.isCancelled else { throw error }
                let waited = ContinuousClock.now - start
                let pause: Duration
                if attempt < retryDelays.count {
                    pause = retryDelays[attempt]
                } else if refusal.cause == .locked, waited < lockedWait {
                    pause = min(lockedPoll, lockedWait - waited)
                } else {
                    let seconds = { (duration: Duration) in
                        DecimalText.fixed(duration.totalSeconds, maxFractionDigits: 1) + " s"
                    }
                    let tried =
                        refusal.cause == .locked && lockedWait > .zero
                        ? " launchbench waited \(seconds(lockedWait)) (--require-wait) for the phone to be unlocked."
                        : " launchbench tried again \(attempt) times over \(seconds(waited)); it did not clear."
                            + (refusal.cause == .locked
                                ? " With --require, each launch waits up to --require-wait for an unlock." : "")
                    throw ProcessControlError(
                        error.kind,
                        refusal.message(device: udid, bundleID: request.bundleID, attempts: attempt + 1) + tried,
                        refusal: refusal)
                }
                observer.launchRetried(after: refusal.cause.rawValue)
                try? await Task.sleep(for: pause)
                attempt += 1
            }
        }
    }

    /// The process's events as they arrive, handed to the observer from the launch's own loop.
    private final class Inbox: Sendable {
        enum State {
            case running
            case lost(String)
            case gone(String)
            case ended(LaunchTermination)
        }

        private struct Pending {
            var events: [ProcessEvent] = []
            var finished = false
            /// The launch's loop, waiting for the next event (or its tick).
            var waiter: CheckedContinuation<Void, Never>?
        }

        private let pending = Locked(Pending())
        private let pump: Task<Void, Never>

        init(_ events: AsyncStream<ProcessEvent>) {
            let pending = self.pending
            pump = Task {
                for await event in events {
                    pending.withLock { state in
                        state.events.append(event)
                        return state.waiter.take()
                    }?.resume()
                }
                pending.withLock { state in
                    state.finished = true
                    return state.waiter.take()
                }?.resume()
            }
        }

        /// Returns when an event arrives, at the latest after `limit`: an exit is seen at once, not a tick later.
        /// Once the stream has ended (and been taken) it waits the whole `limit`, so a launch whose stream was
        /// lost still ticks instead of spinning.
        func waitForEvent(upTo limit: Duration) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = pending.withLock { state -> Bool in
                    if !state.events.isEmpty { return true }
                    state.waiter = continuation
                    return false
                }
                if now { return continuation.resume() }
                Task { [pending] in
                    try? await Task.sleep(for: limit)
                    pending.withLock { $0.waiter.take() }?.resume()
                }
            }
        }

        /// Delivers all that arrived, output after the termination notice too; says whether the process ended
        /// (and how) or its stream was lost.
        func take(into observer: any LaunchObserver) -> State {
            let (events, finished) = pending.withLock { state in
                defer { state.events.removeAll() }
                return (state.events, state.finished)
            }
            var ending: State?
            for event in events {
                switch event {
                case .output(let bytes): observer.output(bytes)
                case .terminated(let exitCode, let signal) where ending == nil:
                    // Signal 0 is no signal: a clean exit comes as exit code 0 with the signal nil (what
                    // DTProcessControlService sends) or 0 (pymobiledevice3 11.45.0's process_control.py takes each
                    // field as Optional[int]; Frida's dtx.vala reads a number in one field and nil in the other;
                    // go-ios ignores the notice). Only a non-zero signal is a crash.
                    if let signal, signal != 0 {
                        ending = .ended(.crashed(signal: signal))
                    } else {
                        ending = .ended(.exited(status: exitCode ?? 0))
                    }
                case .lost(let reason) where ending == nil: ending = .lost(reason)
                case .controlGone(let reason) where ending == nil: ending = .gone(reason)
                case .terminated, .lost, .controlGone: break
                }
            }
            return ending ?? (finished ? .lost("process control's event stream ended") : .running)
        }

        /// After the termination notice: hands the observer the output that still arrives, until the launch is
        /// complete, nothing more can come, or `limit` has passed. Returns whether the launch is complete.
        func drainLateOutput(into observer: any LaunchObserver, upTo limit: Duration) async -> Bool {
            let deadline = ContinuousClock.now + limit
            while !observer.isComplete {
                switch take(into: observer) {
                case .lost, .gone: return observer.isComplete
                case .running, .ended: break
                }
                let left = deadline - .now
                guard left > .zero else { return observer.isComplete }
                await waitForEvent(upTo: left)
            }
            return true
        }

        /// Waits (bounded) until the process's end or the stream's has arrived.
        func waitForEnd(upTo limit: Duration) async {
            let deadline = ContinuousClock.now + limit
            while ContinuousClock.now < deadline {
                let done = pending.withLock { state in
                    state.finished || state.events.contains { if case .output = $0 { false } else { true } }
                }
                if done { return }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }

        func close() { pump.cancel() }
    }
}
