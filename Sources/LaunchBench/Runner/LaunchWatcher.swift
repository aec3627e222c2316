import Foundation

/// Watches one launch for the runner: writes the output to the log as it arrives, feeds the parser, and
/// decides when the launch is over.
///
/// The end-of-launch rule: the launch is *complete* once the app printed `[launchbench] done`, or its
/// `firstFrame` marker, or a complete dyld statistics block with no marker after it (markers that start
/// arriving after the statistics mean the app uses markers: then wait for `firstFrame`/`done`). When earlier
/// launches of this app on this device printed `firstFrame`/`done` (`expectsMarkers`), the statistics alone
/// never complete a launch: one that hangs after pre-main waits for the markers up to `timeout`. The app
/// is ended `grace` after it became complete, or at `timeout` after `continue`, or at once when cancelled.
final class LaunchWatcher: LaunchObserver, Sendable {
    private let log: LaunchLog?
    private let timeout: Duration
    private let grace: Duration
    private let clock = ContinuousClock()
    private let createdAt: ContinuousClock.Instant
    private let expectsMarkers: Bool
    private let state: Locked<State>

    /// What changes as the output arrives (from the driver's thread) and is read by the runner.
    private struct State {
        var parser = LaunchLogParser()
        var launchedAt: ContinuousClock.Instant?
        var completeAt: ContinuousClock.Instant?
        var byteCount = 0
        var cancelled = false

        /// After each chunk. Completion can be withdrawn: markers that begin after a complete statistics
        /// block mean the app uses markers, so `firstFrame`/`done` becomes the end.
        mutating func updateCompletion(at now: ContinuousClock.Instant, expectsMarkers: Bool) {
            let progress = parser.progress
            let complete =
                progress.done || progress.markers["firstFrame"] != nil
                || (progress.statisticsComplete && progress.markers.isEmpty && !expectsMarkers)
            if !complete {
                completeAt = nil
            } else if completeAt == nil {
                completeAt = now
            }
        }
    }

    init(log: LaunchLog?, timeout: Duration, grace: Duration, expectsMarkers: Bool = false) {
        self.log = log
        self.timeout = timeout
        self.grace = grace
        self.expectsMarkers = expectsMarkers
        createdAt = clock.now
        state = Locked(State())
    }

    func launched(at instant: ContinuousClock.Instant) {
        state.withLock { $0.launchedAt = instant }
    }

    func output(_ bytes: [UInt8]) {
        log?.write(bytes)
        let now = clock.now
        state.withLock { state in
            state.byteCount += bytes.count
            state.parser.feed(bytes)
            state.updateCompletion(at: now, expectsMarkers: expectsMarkers)
        }
    }

    func shouldEnd(at instant: ContinuousClock.Instant) -> HarnessStop? {
        state.withLock { state in
            if state.cancelled { return .cancelled }
            if let completeAt = state.completeAt, instant - completeAt >= grace { return .complete }
            if instant - (state.launchedAt ?? createdAt) >= timeout { return .timeout }
            return nil
        }
    }

    /// When the launch became complete (the end-of-launch rule), `nil` while it is not.
    var completedAt: ContinuousClock.Instant? {
        state.withLock { $0.completeAt }
    }

    /// Makes the next `shouldEnd` answer `.cancelled` (Ctrl-C).
    func cancel() {
        state.withLock { $0.cancelled = true }
    }

    /// Closes the log and returns what was seen; call once, after the driver's `launch` returned.
    func finish() -> LaunchObservation {
        log?.close()
        return state.withLock { state in
            let progress = state.parser.progress
            let record = state.parser.finishSingleLaunch()
            return LaunchObservation(
                record: record, launchedAt: state.launchedAt, completeAt: state.completeAt,
                receivedOutput: state.byteCount > 0,
                sawPartialLaunch: !record.metrics.isEmpty || !progress.markers.isEmpty,
                statisticsComplete: progress.statisticsComplete, markerNames: progress.markers.keys.sorted(),
                expectedMarkers: expectsMarkers,
                printedEndMarker: progress.done || progress.markers["firstFrame"] != nil)
        }
    }
}

/// What a `LaunchWatcher` saw of one launch.
struct LaunchObservation: Sendable {
    var record: LaunchRecord
    var launchedAt: ContinuousClock.Instant?
    /// When the launch became complete (the end-of-launch rule), `nil` if it never did.
    var completeAt: ContinuousClock.Instant?
    var receivedOutput: Bool
    /// Some statistics or markers arrived (so an exit before completion cut a launch short).
    var sawPartialLaunch: Bool
    var statisticsComplete: Bool
    var markerNames: [String]
    /// Earlier launches printed `firstFrame`/`done`, so this one had to as well.
    var expectedMarkers = false
    /// This launch printed `firstFrame` or `done` (later launches must, too).
    var printedEndMarker = false
}
