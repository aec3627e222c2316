import Foundation
import Testing

@testable import LaunchBench

/// The end-of-launch rule, driven by hand with chosen instants.
@Suite(.timeLimit(.minutes(5))) struct LaunchWatcherTests {
    private let stats = FakeOutput.statistics(total: 300, dylib: 100, rebase: 50, objc: 50, initializer: 100)

    private func watcher(timeout: Duration = .seconds(10), grace: Duration = .milliseconds(200), log: LaunchLog? = nil)
        -> (LaunchWatcher, ContinuousClock.Instant)
    {
        let watcher = LaunchWatcher(log: log, timeout: timeout, grace: grace)
        let start = ContinuousClock.now
        watcher.launched(at: start)
        return (watcher, start)
    }

    @Test func aCompleteStatisticsBlockEndsTheLaunchAfterTheGrace() throws {
        let (watcher, start) = watcher()
        watcher.output(Array(stats.utf8.dropLast()))  // the block's empty line is still missing
        #expect(watcher.shouldEnd(at: start + .seconds(5)) == nil)
        watcher.output([0x0A])
        let complete = try #require(watcher.completedAt)
        #expect(watcher.shouldEnd(at: complete + .milliseconds(100)) == nil)
        #expect(watcher.shouldEnd(at: complete + .milliseconds(200)) == .complete)
        #expect(watcher.finish().record.totalPremainMs == 300)
    }

    @Test func markersAfterTheStatisticsWithdrawCompletionUntilFirstFrame() throws {
        let (watcher, _) = watcher()
        watcher.output(Array(stats.utf8))
        #expect(watcher.completedAt != nil)
        watcher.output(Array(FakeOutput.mark("main", 310).utf8))
        #expect(watcher.completedAt == nil)
        watcher.output(Array(FakeOutput.mark("firstFrame", 700).utf8))
        let complete = try #require(watcher.completedAt)
        #expect(watcher.shouldEnd(at: complete + .milliseconds(250)) == .complete)
        let observation = watcher.finish()
        #expect(observation.markerNames == ["firstFrame", "main"])
        #expect(observation.completeAt == complete)
    }

    @Test func doneAloneCompletesTheLaunch() {
        let (watcher, _) = watcher()
        watcher.output(Array(FakeOutput.done.utf8))
        #expect(watcher.completedAt != nil)
    }

    @Test func theTimeoutCountsFromContinueAndCancellationWins() {
        let (watcher, start) = watcher(timeout: .seconds(2))
        watcher.output(Array("still starting\n".utf8))
        #expect(watcher.shouldEnd(at: start + .milliseconds(1999)) == nil)
        #expect(watcher.shouldEnd(at: start + .seconds(2)) == .timeout)
        watcher.cancel()
        #expect(watcher.shouldEnd(at: start) == .cancelled)
    }

    @Test func theLogGetsEveryByteVerbatimEvenSplitInsideACharacter() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "launchbench-watcher-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let log = try ResultsStore(folder: folder).makeLaunchLog(udid: "U", iteration: 1, kind: .cold, launchIndex: 0)
        let (watcher, _) = watcher(log: log)
        let text = "héllo \u{1F680}\n" + stats + FakeOutput.mark("firstFrame", 12.5)
        for byte in Array(text.utf8) { watcher.output([byte]) }
        let observation = watcher.finish()
        #expect(try Data(contentsOf: log.url) == Data(text.utf8))
        #expect(observation.record.markers["firstFrame"] == 12.5 && observation.record.totalPremainMs == 300)
    }

    @Test func verdictsFollowHowTheLaunchEnded() {
        let (watcher, start) = watcher()
        watcher.output(Array((stats + FakeOutput.mark("main", 300)).utf8))
        let partial = watcher.finish()
        let exited = LaunchVerdict(termination: .exited(status: 0), observation: partial, timeout: .seconds(10))
        #expect(exited?.status == .crashed && exited?.exitStatus == 0 && exited?.wallMs == nil)
        let timedOut = LaunchVerdict(
            termination: .endedByHarness(.timeout), observation: partial, timeout: .seconds(10))
        #expect(timedOut?.status == .timeout && timedOut?.message?.contains("main") == true)
        #expect(
            LaunchVerdict(termination: .endedByHarness(.cancelled), observation: partial, timeout: .seconds(10)) == nil)

        var complete = partial
        complete.completeAt = start + .milliseconds(420)
        let ok = LaunchVerdict(termination: .endedByHarness(.complete), observation: complete, timeout: .seconds(10))
        #expect(ok?.status == .ok && ok?.wallMs == 420)
    }
}
