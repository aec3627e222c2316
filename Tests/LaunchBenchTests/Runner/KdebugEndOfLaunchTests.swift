import Foundation
import Testing

@testable import LaunchBench

/// An app without LaunchProbe prints nothing: the kernel trace ends its launch and makes it count.
@Suite(.timeLimit(.minutes(5))) struct KdebugEndOfLaunchTests {
    private func watcher(grace: Duration = .milliseconds(200), expectsMarkers: Bool = false)
        -> (LaunchWatcher, ContinuousClock.Instant)
    {
        let watcher = LaunchWatcher(log: nil, timeout: .seconds(10), grace: grace, expectsMarkers: expectsMarkers)
        // A second ago, so the instants the tests pass have all come by the time `finish` looks.
        let start = ContinuousClock.now - .seconds(1)
        watcher.launched(at: start)
        return (watcher, start)
    }

    @Test func kdebugsFirstFrameCompletesASilentLaunch() throws {
        let (watcher, start) = watcher()
        watcher.kdebugProgress(KdebugLaunchProgress(reachedMain: true), at: start + .milliseconds(300))
        #expect(watcher.shouldEnd(at: start + .milliseconds(350)) == nil)
        watcher.kdebugProgress(
            KdebugLaunchProgress(reachedMain: true, firstFrame: true), at: start + .milliseconds(400))
        #expect(watcher.shouldEnd(at: start + .milliseconds(599)) == nil)
        #expect(watcher.shouldEnd(at: start + .milliseconds(600)) == .complete)
        let observation = watcher.finish()
        #expect(observation.completeAt == start + .milliseconds(400))
        #expect(observation.completedByKdebug)
        let verdict = LaunchVerdict(
            termination: .endedByHarness(.complete), observation: observation, timeout: .seconds(10),
            kdebugMeasured: true)
        #expect(verdict?.status == .ok && verdict?.message == nil)
        #expect(verdict?.wallMs == nil)  // the host sees the trace a flush late: no wall time from it
    }

    /// No first frame in the trace: the launch is complete `grace` after main, and ended `grace` later.
    @Test func mainWithoutAFirstFrameCompletesAfterTheGrace() {
        let (watcher, start) = watcher()
        watcher.kdebugProgress(KdebugLaunchProgress(reachedMain: true), at: start + .milliseconds(300))
        #expect(watcher.shouldEnd(at: start + .milliseconds(699)) == nil)
        #expect(watcher.shouldEnd(at: start + .milliseconds(700)) == .complete)
    }

    /// An app that prints markers (or printed them before) is ended by its markers, as a hang after pre-main
    /// must not pass for a launch.
    @Test func markersKeepTheirRule() {
        let (quiet, start) = watcher(expectsMarkers: true)
        quiet.kdebugProgress(KdebugLaunchProgress(reachedMain: true, firstFrame: true), at: start)
        #expect(quiet.shouldEnd(at: start + .seconds(5)) == nil)
        let (printing, _) = watcher()
        printing.output(Array(FakeOutput.mark("main", 300).utf8))
        printing.kdebugProgress(KdebugLaunchProgress(reachedMain: true, firstFrame: true), at: start)
        #expect(printing.shouldEnd(at: start + .seconds(5)) == nil)
    }

    /// Output lost mid-launch (process control's stream): the markers cannot come, so kdebug completes the launch
    /// even of an app that prints them, and the sample says why its markers are missing.
    @Test func lostOutputLetsKdebugCompleteALaunchThatPrintsMarkers() {
        let (watcher, start) = watcher(expectsMarkers: true)
        watcher.output(Array(FakeOutput.mark("main", 300).utf8))
        watcher.kdebugProgress(KdebugLaunchProgress(reachedMain: true, firstFrame: true), at: start)
        #expect(watcher.shouldEnd(at: start + .seconds(5)) == nil)
        watcher.outputLost("process control's channel closed")
        #expect(watcher.shouldEnd(at: start + .seconds(5)) == .complete)
        let warnings = watcher.finish().record.warnings
        #expect(warnings.contains { $0.hasPrefix(LaunchWatcher.outputLostWarning) && $0.contains("channel closed") })
    }

    /// An app without LaunchProbe that exits by itself after main is a launch; without kdebug's phases it
    /// measured nothing.
    @Test func aSilentAppThatExitsAfterMainIsOk() {
        let (watcher, _) = watcher()
        let observation = watcher.finish()
        let measured = LaunchVerdict(
            termination: .exited(status: 0), observation: observation, timeout: .seconds(10), kdebugMeasured: true)
        #expect(measured?.status == .ok && measured?.exitStatus == 0 && measured?.message == nil)
        let unmeasured = LaunchVerdict(termination: .exited(status: 0), observation: observation, timeout: .seconds(10))
        #expect(unmeasured?.status == .noMetrics)
        let crashed = LaunchVerdict(
            termination: .exited(status: 1), observation: observation, timeout: .seconds(10), kdebugMeasured: true)
        #expect(crashed?.status == .crashed)
    }
}
