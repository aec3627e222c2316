import Foundation

/// Watches one launch for the runner: writes the output to the log as it arrives, feeds the parser, and
/// decides when the launch is over.
///
/// The end-of-launch rule: the launch is *complete* once the app printed `[launchbench] done`, or its
/// `firstFrame` marker, or a complete dyld statistics block with no marker after it (markers that start
/// arriving after the statistics mean the app uses markers: then wait for `firstFrame`/`done`). When earlier
/// launches of this app on this device printed `firstFrame`/`done` (`expectsMarkers`), the statistics alone
/// never complete a launch: one that hangs after pre-main waits for the markers up to `timeout`. Without
/// markers, the kernel trace completes a launch too (``kdebugProgress(_:at:)``): at the first frame kdebug
/// shows, or `grace` after dyld's `LAUNCH_EXECUTABLE` END when no first frame comes, so an app without
/// LaunchProbe that stays alive is a launch, not a timeout. The app is ended `grace` after it became complete,
/// or at `timeout` after `continue`, or at once when cancelled.
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
        /// When the host saw dyld reach main and the first frame in the kernel trace.
        var kdebugMainAt: ContinuousClock.Instant?
        var kdebugFrameAt: ContinuousClock.Instant?
        /// Why the output stopped arriving while the app ran (``outputLost(_:)``), if it did.
        var outputLost: String?
        /// How often the launch was tried again after a transient refusal (``launchRetried(after:)``).
        var retries = 0

        /// When kdebug alone completes the launch: the app prints no markers, nor are any expected, or its output
        /// was lost (the markers cannot come).
        func kdebugCompleteAt(grace: Duration, expectsMarkers: Bool) -> ContinuousClock.Instant? {
            guard outputLost != nil || (!expectsMarkers && parser.progress.markers.isEmpty) else { return nil }
            return kdebugFrameAt ?? kdebugMainAt.map { $0 + grace }
        }

        /// The output's completion, else kdebug's once its instant has come.
        func completion(at now: ContinuousClock.Instant, grace: Duration, expectsMarkers: Bool)
            -> (at: ContinuousClock.Instant, byKdebug: Bool)?
        {
            if let completeAt { return (completeAt, false) }
            guard let kdebug = kdebugCompleteAt(grace: grace, expectsMarkers: expectsMarkers), kdebug <= now
            else { return nil }
            return (kdebug, true)
        }

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

    /// What the kernel trace showed of this launch so far, seen by the host at `instant`.
    func kdebugProgress(_ progress: KdebugLaunchProgress, at instant: ContinuousClock.Instant) {
        state.withLock { state in
            if progress.reachedMain && state.kdebugMainAt == nil { state.kdebugMainAt = instant }
            if progress.firstFrame && state.kdebugFrameAt == nil { state.kdebugFrameAt = instant }
        }
    }

    func shouldEnd(at instant: ContinuousClock.Instant) -> HarnessStop? {
        state.withLock { state in
            if state.cancelled { return .cancelled }
            let completion = state.completion(at: instant, grace: grace, expectsMarkers: expectsMarkers)
            if let completeAt = completion?.at, instant - completeAt >= grace { return .complete }
            if instant - (state.launchedAt ?? createdAt) >= timeout { return .timeout }
            return nil
        }
    }

    /// When the launch became complete (the end-of-launch rule), `nil` while it is not.
    var completedAt: ContinuousClock.Instant? {
        let now = clock.now
        return state.withLock { $0.completion(at: now, grace: grace, expectsMarkers: expectsMarkers)?.at }
    }

    /// Whether the app's own output completed the launch (kdebug's completion counts only once that output is
    /// lost): after the app's end, process control awaits late output while this is false, since an app without
    /// markers so far may have them on their way (the phone relays output and the termination notice in no
    /// promised order) and kdebug alone would otherwise complete it without them.
    var isComplete: Bool {
        state.withLock { state in
            if state.completeAt != nil { return true }
            return state.outputLost != nil
                && state.kdebugCompleteAt(grace: grace, expectsMarkers: expectsMarkers) != nil
        }
    }

    /// The output stopped arriving: kdebug completes the launch from now on, and the sample says why its markers
    /// are missing.
    func outputLost(_ reason: String) {
        state.withLock { state in
            if state.outputLost == nil { state.outputLost = reason }
        }
    }

    func launchRetried(after refusal: String) {
        state.withLock { $0.retries += 1 }
    }

    /// How the warning of a launch whose output was lost begins (such a launch says nothing of the app's markers).
    static let outputLostWarning = "The app's output stopped arriving mid-launch"

    /// Makes the next `shouldEnd` answer `.cancelled` (Ctrl-C).
    func cancel() {
        state.withLock { $0.cancelled = true }
    }

    /// Closes the log and returns what was seen; call once, after the driver's `launch` returned.
    func finish() -> LaunchObservation {
        log?.close()
        let now = clock.now
        return state.withLock { state in
            let progress = state.parser.progress
            let completion = state.completion(at: now, grace: grace, expectsMarkers: expectsMarkers)
            var record = state.parser.finishSingleLaunch()
            if let lost = state.outputLost {
                record.warnings.append(
                    Self.outputLostWarning + " (\(lost)): markers after that are missing; the pre-main phases and "
                        + "first frame come from kdebug.")
            }
            return LaunchObservation(
                record: record, launchedAt: state.launchedAt, completeAt: completion?.at,
                completedByKdebug: completion?.byKdebug ?? false,
                receivedOutput: state.byteCount > 0,
                sawPartialLaunch: !record.metrics.isEmpty || !progress.markers.isEmpty,
                statisticsComplete: progress.statisticsComplete, markerNames: progress.markers.keys.sorted(),
                expectedMarkers: expectsMarkers,
                printedEndMarker: progress.done || progress.markers["firstFrame"] != nil, launchRetries: state.retries)
        }
    }
}

/// What a `LaunchWatcher` saw of one launch.
struct LaunchObservation: Sendable {
    var record: LaunchRecord
    var launchedAt: ContinuousClock.Instant?
    /// When the launch became complete (the end-of-launch rule), `nil` if it never did.
    var completeAt: ContinuousClock.Instant?
    /// The kernel trace completed it (first frame, or `grace` after main), not the output: the host saw it
    /// late by the trace's delivery, so no wall time is taken from it.
    var completedByKdebug = false
    var receivedOutput: Bool
    /// Some statistics or markers arrived (so an exit before completion cut a launch short).
    var sawPartialLaunch: Bool
    var statisticsComplete: Bool
    var markerNames: [String]
    /// Earlier launches printed `firstFrame`/`done`, so this one had to as well.
    var expectedMarkers = false
    /// This launch printed `firstFrame` or `done` (later launches must, too).
    var printedEndMarker = false
    /// Transient refusals before the launch was accepted (or before it was given up).
    var launchRetries = 0
}

/// What the kernel trace showed of a launch so far.
struct KdebugLaunchProgress: Sendable, Equatable {
    /// dyld's `LAUNCH_EXECUTABLE` ended in the app's exec: main was called.
    var reachedMain = false
    /// UIKit's Initial Frame Rendering (0x31CA0006) ended on the app's threads after main.
    var firstFrame = false
}
