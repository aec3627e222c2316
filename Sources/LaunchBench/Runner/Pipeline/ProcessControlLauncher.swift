/// The launch step through process control, with no debugger attached: the app starts at once, its output comes
/// back as output events and its end as a termination notice; the harness ends it with SIGKILL. A death by a
/// signal it did not get from the harness is a crash. When the stream of events is lost mid-launch, the launch
/// goes on until the observer's rule ends it (its markers are missing; its kdebug numbers are kept).
struct ProcessControlLauncher: AppLauncher {
    let control: any ProcessControl
    /// How long a kill waits for the phone's termination notice before the launch returns anyway.
    var killWait: Duration = .seconds(5)
    /// How often the observer is asked whether the launch is over (its grace ends between two asks, so this
    /// is added to each launch's wall time at worst).
    var tick: Duration = .milliseconds(5)
    var method: LaunchMethod { .processControl }

    func launch(_ request: LaunchRequest, on udid: String, observer: any LaunchObserver) async throws
        -> LaunchTermination
    {
        let process = try await control.launch(request)
        observer.launched(at: .now)
        let inbox = Inbox(process.events)
        defer { inbox.close() }
        while true {
            switch inbox.take(into: observer) {
            case .ended(let termination): return termination
            case .running, .lost: break
            }
            if let stop = observer.shouldEnd(at: .now) ?? (Task.isCancelled ? .cancelled : nil) {
                try? await control.kill(process.pid)
                await inbox.waitForEnd(upTo: killWait)
                return .endedByHarness(stop)
            }
            try? await Task.sleep(for: tick)
        }
    }

    /// The process's events as they arrive, handed to the observer from the launch's own loop.
    private final class Inbox: Sendable {
        enum State {
            case running, lost
            case ended(LaunchTermination)
        }

        private let pending = Locked<(events: [ProcessEvent], finished: Bool)>(([], false))
        private let pump: Task<Void, Never>

        init(_ events: AsyncStream<ProcessEvent>) {
            let pending = self.pending
            pump = Task {
                for await event in events { pending.withLock { $0.events.append(event) } }
                pending.withLock { $0.finished = true }
            }
        }

        /// Delivers what arrived; says whether the process ended (and how) or its stream was lost.
        func take(into observer: any LaunchObserver) -> State {
            let (events, finished) = pending.withLock { state in
                defer { state.events.removeAll() }
                return (state.events, state.finished)
            }
            for event in events {
                switch event {
                case .output(let bytes): observer.output(bytes)
                case .terminated(let exitCode, let signal):
                    if let signal { return .ended(.crashed(signal: signal)) }
                    return .ended(.exited(status: exitCode ?? 0))
                case .lost: return .lost
                }
            }
            return finished ? .lost : .running
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
