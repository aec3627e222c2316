import LaunchBench

/// Wakes the tests waiting on something that changes (a child's output, events heard): a test waits for the
/// change it needs, not for a timer, and re-checks its condition each time something changed.
package final class ChangeSignal: Sendable {
    private struct State {
        /// Counts the changes, so a waiter that read it before checking its condition misses none.
        var generation: UInt64 = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Locked(State())

    package init() {}

    /// Says that something changed: every waiter checks its condition again.
    package func notify() {
        let woken = state.withLock { state in
            state.generation &+= 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Returns once `condition` holds, checking it at the start and after each change.
    /// - Throws: `PollingTimeout` after `timeout`; `CancellationError` when the test is cancelled.
    package func wait(
        until what: String, timeout: Duration = .seconds(60), _ condition: () throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        // The bound: one wake-up at the deadline, so a condition that never holds fails instead of hanging.
        let bound = Task { [weak self] in
            try? await Task.sleep(until: deadline)
            self?.notify()
        }
        defer { bound.cancel() }
        while true {
            let generation = state.withLock { $0.generation }
            if try condition() { return }
            guard ContinuousClock.now < deadline else { throw PollingTimeout(what: what, timeout: timeout) }
            try Task.checkCancellation()
            await change(after: generation)
        }
    }

    /// Returns at the first change after `generation` (at once if there was one already), or on cancellation.
    private func change(after generation: UInt64) async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    guard state.generation == generation, !Task.isCancelled else { return true }
                    state.waiters[id] = waiter
                    return false
                }
                if now { waiter.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
