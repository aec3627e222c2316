import LaunchBench

/// A `LaunchObserver` that records a launch's output and ends it when `decide` says so: the drivers' tests
/// watch what a launch printed and how often the driver asked.
package final class RecordingObserver: LaunchObserver, Sendable {
    /// The driver calls from its device queue, the test reads from its task.
    private struct State {
        var bytes: [UInt8] = []
        var launchedAt: ContinuousClock.Instant?
        var questions = 0
    }

    private let state = Locked(State())
    /// Rung at the launch and at each chunk of output: what `waitForOutput` wakes on.
    private let changes = ChangeSignal()
    private let decide: @Sendable (String, ContinuousClock.Instant, ContinuousClock.Instant) -> HarnessStop?

    /// - Parameter decide: given the output so far, the launch instant and now: `nil` to keep running.
    package init(
        decide: @escaping @Sendable (String, ContinuousClock.Instant, ContinuousClock.Instant) -> HarnessStop? = {
            _, _, _ in nil
        }
    ) {
        self.decide = decide
    }

    /// Ends the launch as `--timeout` would once `limit` has passed since it started.
    package convenience init(stopAfter limit: Duration) {
        self.init { _, launched, now in now - launched >= limit ? .timeout : nil }
    }

    package func launched(at instant: ContinuousClock.Instant) {
        state.withLock { $0.launchedAt = instant }
        changes.notify()
    }

    package func output(_ chunk: [UInt8]) {
        state.withLock { $0.bytes += chunk }
        changes.notify()
    }

    package func shouldEnd(at instant: ContinuousClock.Instant) -> HarnessStop? {
        let (text, launched) = state.withLock { state -> (String, ContinuousClock.Instant?) in
            state.questions += 1
            return (String(decoding: state.bytes, as: UTF8.self), state.launchedAt)
        }
        return decide(text, launched ?? instant, instant)
    }

    /// Returns once the output so far satisfies `condition`, checked at each chunk.
    /// - Throws: `PollingTimeout` after `timeout`, naming `what` was awaited.
    package func waitForOutput(
        _ what: String, timeout: Duration = .seconds(30), _ condition: (String) -> Bool
    ) async throws {
        try await changes.wait(until: what, timeout: timeout) { condition(text) }
    }

    /// Everything the launch printed so far.
    package var text: String { state.withLock { String(decoding: $0.bytes, as: UTF8.self) } }
    /// Whether the driver said the app started.
    package var wasLaunched: Bool { state.withLock { $0.launchedAt != nil } }
    /// How often the driver asked whether to end the launch.
    package var timesAsked: Int { state.withLock { $0.questions } }
}
