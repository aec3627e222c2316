import Foundation

/// Prelaunches seen in the device log, for a device no kdebug session watches (dyld's statistics only, iOS ≤
/// 13, no instruments service): runningboardd's `dasd` launch requests naming the app (see
/// `RunningboardLaunchRequest`) are labelled on the next launch, as `KdebugEnricher` labels the execs it sees.
/// The log is opened when the device's run starts and read to its end; how far a prelaunch got, and its pid,
/// the log does not say. An A/B run's two builds (one bundle id) share the device's one log.
struct PrelaunchWatch: SampleEnricher {
    let log: PrelaunchLog
    /// The rules that label a launch (`LaunchDisturbance`).
    let plan: RunPlan

    /// How long the first launch waits for the log to open.
    static let openTimeout: Duration = .seconds(5)

    func willLaunch(_ attempt: LaunchAttempt) async {
        await log.waitUntilOpen(timeout: Self.openTimeout)
        log.launchStarts()
    }

    func enrich(_ sample: inout Sample, of attempt: LaunchAttempt) async -> Bool {
        LaunchDisturbance.label(
            &sample, prelaunch: log.takePrelaunch(), builtClosure: false, attempt: attempt, plan: plan)
        return false
    }

    func finish() async -> [String] {
        log.stop()
        return log.failure.map { ["Prelaunches are not watched: the device log could not be read: \($0)"] } ?? []
    }
}

/// The reading side of `PrelaunchWatch`: a task over the device's log lines that keeps the app's prelaunch
/// requests until a launch takes them.
final class PrelaunchLog: Sendable {
    private struct Seen {
        var kind: Prelaunch.Kind
        var reason: String
        var at: ContinuousClock.Instant
    }

    private struct State {
        var open = false
        var ended = false
        var failure: String?
        var seen: [Seen] = []
        var launchStart: ContinuousClock.Instant?
        var task: Task<Void, Never>?
    }

    private let state = Locked(State())

    /// Opens `udid`'s log through `driver` and starts reading it for the app `bundleID`.
    init(driver: any DeviceDriver, udid: String, bundleID: String) {
        let task = Task { [state] in
            do {
                let lines = try await driver.deviceLog(on: udid)
                state.withLock { $0.open = true }
                for try await line in lines {
                    guard let request = RunningboardLaunchRequest(line: line), request.bundleID == bundleID,
                        let kind = request.prelaunchKind
                    else { continue }
                    let now = ContinuousClock.now
                    state.withLock { $0.seen.append(Seen(kind: kind, reason: request.reason, at: now)) }
                }
                state.withLock { $0.ended = true }
            } catch is DeviceLogUnavailable {
                // A driver without a device log (an in-memory one) has nothing to watch and nothing to say.
                state.withLock { $0.ended = true }
            } catch is CancellationError {
                state.withLock { $0.ended = true }
            } catch {
                let text = (error as? any LocalizedError)?.errorDescription ?? String(describing: error)
                state.withLock {
                    $0.ended = true
                    if !Task.isCancelled { $0.failure = text }
                }
            }
        }
        state.withLock { $0.task = task }
    }

    /// Waits until the log is open or failed, at most `timeout`.
    func waitUntilOpen(timeout: Duration) async {
        let deadline = ContinuousClock.now + timeout
        while !state.withLock({ $0.open || $0.ended }) && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Notes when the launch about to be labelled starts.
    func launchStarts() {
        let now = ContinuousClock.now
        state.withLock { $0.launchStart = now }
    }

    /// The newest prelaunch since the previous launch took them, as the launch's label; `nil` when none came.
    func takePrelaunch() -> Prelaunch? {
        state.withLock { state in
            defer { state.seen.removeAll() }
            guard let latest = state.seen.last else { return nil }
            let seconds = state.launchStart.flatMap { start in
                start >= latest.at ? (start - latest.at).totalSeconds : nil
            }
            return Prelaunch(
                kind: latest.kind, reason: latest.reason, secondsBefore: seconds, count: state.seen.count,
                source: .deviceLog)
        }
    }

    /// Why the log could not be read, when it failed (not when it was stopped or the driver has none).
    var failure: String? { state.withLock { $0.failure } }

    /// Stops reading.
    func stop() {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.ended = true
            return state.task
        }
        task?.cancel()
    }
}
