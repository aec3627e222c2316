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
final class LaunchWatcher: LaunchObserver, @unchecked Sendable {  // `lock` guards every `var`.
    private let lock = NSLock()
    private var parser = LaunchLogParser()
    private let log: LaunchLog?
    private let timeout: Duration
    private let grace: Duration
    private let clock = ContinuousClock()
    private let createdAt: ContinuousClock.Instant
    private var launchedAt: ContinuousClock.Instant?
    private var completeAt: ContinuousClock.Instant?
    private var byteCount = 0
    private var cancelled = false
    private let expectsMarkers: Bool

    init(log: LaunchLog?, timeout: Duration, grace: Duration, expectsMarkers: Bool = false) {
        self.log = log
        self.timeout = timeout
        self.grace = grace
        self.expectsMarkers = expectsMarkers
        createdAt = clock.now
    }

    func launched(at instant: ContinuousClock.Instant) {
        lock.critical { launchedAt = instant }
    }

    func output(_ bytes: [UInt8]) {
        log?.write(bytes)
        let now = clock.now
        lock.critical {
            byteCount += bytes.count
            parser.feed(bytes)
            updateCompletion(at: now)
        }
    }

    func shouldEnd(at instant: ContinuousClock.Instant) -> HarnessStop? {
        lock.critical {
            if cancelled { return .cancelled }
            if let completeAt, instant - completeAt >= grace { return .complete }
            if instant - (launchedAt ?? createdAt) >= timeout { return .timeout }
            return nil
        }
    }

    /// When the launch became complete (the end-of-launch rule), `nil` while it is not.
    var completedAt: ContinuousClock.Instant? {
        lock.critical { completeAt }
    }

    /// Makes the next `shouldEnd` answer `.cancelled` (Ctrl-C).
    func cancel() {
        lock.critical { cancelled = true }
    }

    /// Closes the log and returns what was seen; call once, after the driver's `launch` returned.
    func finish() -> LaunchObservation {
        log?.close()
        return lock.critical {
            let progress = parser.progress
            let record = parser.finishSingleLaunch()
            return LaunchObservation(
                record: record, launchedAt: launchedAt, completeAt: completeAt, receivedOutput: byteCount > 0,
                sawPartialLaunch: !record.metrics.isEmpty || !progress.markers.isEmpty,
                statisticsComplete: progress.statisticsComplete, markerNames: progress.markers.keys.sorted(),
                expectedMarkers: expectsMarkers,
                printedEndMarker: progress.done || progress.markers["firstFrame"] != nil)
        }
    }

    /// Called with the lock held after each chunk. Completion can be withdrawn: markers that begin after a
    /// complete statistics block mean the app uses markers, so `firstFrame`/`done` becomes the end.
    private func updateCompletion(at now: ContinuousClock.Instant) {
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
