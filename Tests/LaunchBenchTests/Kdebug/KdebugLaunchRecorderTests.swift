import Foundation
import LaunchBench
import Testing

extension KdebugTests {
    /// A device's trace session cut into launches: the recorder finds each launch's exec by the app's name and
    /// measures it, and says why when it cannot.
    @Suite struct KdebugLaunchRecorderTests {
        /// A feed that yields `chunks`, then ends (or fails with `failure`).
        static func feed(_ chunks: [[UInt8]], failure: (any Error)? = nil) -> (KdebugFeed, StopCount) {
            let stops = StopCount()
            let stream = AsyncThrowingStream<[UInt8], any Error> { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish(throwing: failure)
            }
            return (KdebugFeed(timebase: .iPhone, chunks: stream) { stops.add() }, stops)
        }

        final class StopCount: Sendable {
            private let count = Locked(0)
            func add() { count.withLock { $0 += 1 } }
            var value: Int { count.current }
        }

        /// One record of `id` on thread 1 (a lost-events report, say).
        static func record(_ id: KdebugDebugID) -> [UInt8] {
            KdebugRecord(timestamp: KdebugFixtures.synthExec + 10, debugID: id, threadID: 1).bytes
        }

        @Test func measuresTheLaunchOfTheNamedExecutable() async throws {
            let (feed, stops) = Self.feed([try KdebugFixtures.bytes("synth-launch.kdebug")])
            let recorder = KdebugLaunchRecorder(feed: feed)
            let capture = await recorder.capture(executable: "Demo", timeout: .seconds(5))
            let phases = try #require(capture.phases)
            #expect(phases.pid == 4243)
            #expect(phases.totalPremainMs == 28.0)
            #expect(phases.processCreationMs == 2.0)
            #expect(phases.rebaseBindingMs == 4.0)
            #expect(capture.warnings.isEmpty, "\(capture.warnings)")
            #expect(capture.lostEvents == 0)
            await recorder.stop()
            #expect(stops.value == 1)
        }

        /// xpcproxy's exec and dyld launch come first in the same pid: the recorder waits for the app's own
        /// launch and measures that one, not xpcproxy's.
        @Test func measuresTheAppsExecNotXpcproxys() async throws {
            let records = DyldPhaseShapesTests.xpcproxyThenApp()
            let (feed, _) = Self.feed([records.flatMap(\.bytes)])
            let recorder = KdebugLaunchRecorder(feed: feed)
            let capture = await recorder.capture(executable: "Demo", timeout: .seconds(5))
            let phases = try #require(capture.phases)
            #expect(phases.mainThreadID == 0x800)
            #expect(phases.execTimestamp == 40_000_000)
            #expect(phases.mainTimestamp == 52_000_000)
        }

        /// What the runner follows while the app runs: main in the app's exec (not xpcproxy's), then the end of
        /// Initial Frame Rendering on the thread that ran main after UIKit's BEGIN (0x2B870030). An END before the
        /// BEGIN (a stray, py-ios-device PR #127) or on another thread does not end the launch.
        @Test func followsTheLaunchToItsFirstFrame() async throws {
            typealias Shapes = DyldPhaseShapesTests
            let frame = KdebugDebugID(
                rawValue: KdebugDebugID.initialFrameRendering.rawValue | KdebugFunction.end.rawValue)
            let beforeMain = Shapes.xpcproxyThenApp().filter { $0.timestamp < 50_000_000 }
            let stream = AsyncThrowingStream<[UInt8], any Error>.makeStream()
            let recorder = KdebugLaunchRecorder(
                feed: KdebugFeed(timebase: .nanoseconds, chunks: stream.stream) {})
            stream.continuation.yield(beforeMain.flatMap(\.bytes))
            try await Self.until { await recorder.progress(of: "Demo") == (false, false) }
            // main, a stray END on the app's main thread before the BEGIN, then the BEGIN and a frame on a thread
            // that is not the app's
            let afterMain =
                Shapes.xpcproxyThenApp().filter { $0.timestamp >= 50_000_000 }
                + [
                    KdebugRecord(timestamp: 55_000_000, debugID: frame, threadID: 0x800),
                    KdebugRecord(
                        timestamp: 58_000_000, debugID: KdebugDebugID(rawValue: 0x2B87_0030), threadID: 0x800),
                    KdebugRecord(timestamp: 60_000_000, debugID: frame, threadID: 0x999),
                ]
            stream.continuation.yield(afterMain.flatMap(\.bytes))
            try await Self.until { await recorder.progress(of: "Demo") == (true, false) }
            stream.continuation.yield(KdebugRecord(timestamp: 61_000_000, debugID: frame, threadID: 0x800).bytes)
            try await Self.until { await recorder.progress(of: "Demo") == (true, true) }
            stream.continuation.finish()
        }

        /// A stray END alone never ends the launch: the progress says no first frame until the BEGIN's END.
        @Test func aStrayEndDoesNotEndTheLaunch() async throws {
            typealias Shapes = DyldPhaseShapesTests
            let frame = KdebugDebugID(
                rawValue: KdebugDebugID.initialFrameRendering.rawValue | KdebugFunction.end.rawValue)
            let records =
                Shapes.xpcproxyThenApp() + [KdebugRecord(timestamp: 55_000_000, debugID: frame, threadID: 0x800)]
            let (feed, _) = Self.feed([records.flatMap(\.bytes)])
            let recorder = KdebugLaunchRecorder(feed: feed)
            try await Self.until { await recorder.progress(of: "Demo").reachedMain }
            #expect(await recorder.progress(of: "Demo") == (true, false))
        }

        /// A capture waiting for its launch's end looks as soon as the chunk with it arrives, not at a poll's next
        /// turn or the timeout: with a minute's timeout it returns with the phases once the chunk is yielded.
        @Test func aCaptureTakesTheLaunchAsItsChunkArrives() async throws {
            let stream = AsyncThrowingStream<[UInt8], any Error>.makeStream()
            let recorder = KdebugLaunchRecorder(feed: KdebugFeed(timebase: .iPhone, chunks: stream.stream) {})
            let capture = Task { await recorder.capture(executable: "Demo", timeout: .seconds(60)) }
            try await Task.sleep(for: .milliseconds(50))  // the capture is waiting
            stream.continuation.yield(try KdebugFixtures.bytes("synth-launch.kdebug"))
            let started = ContinuousClock.now
            let phases = try #require(await capture.value.phases)
            #expect(phases.pid == 4243)
            #expect(ContinuousClock.now - started < .seconds(30), "it waited for the timeout, not for the chunk")
            stream.continuation.finish()
        }

        /// A wait for the next chunk ends with the session (nothing more can come), and at its deadline.
        @Test func theWaitForAChunkEndsWithTheSessionOrItsDeadline() async throws {
            let stream = AsyncThrowingStream<[UInt8], any Error>.makeStream()
            let recorder = KdebugLaunchRecorder(feed: KdebugFeed(timebase: .iPhone, chunks: stream.stream) {})
            let waiting = Task { await recorder.nextChunk(until: .now + .seconds(60)) }
            try await Task.sleep(for: .milliseconds(50))
            stream.continuation.finish()
            let started = ContinuousClock.now
            await waiting.value
            #expect(ContinuousClock.now - started < .seconds(30), "the ended session did not wake the wait")
            let deadline = ContinuousClock.now + .milliseconds(100)
            await recorder.nextChunk(until: deadline)
            #expect(ContinuousClock.now >= deadline)
        }

        /// Polls `condition` for up to 5 s.
        static func until(_ condition: () async -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(5)
            while !(await condition()) {
                try #require(ContinuousClock.now < deadline, "condition not met within 5 s")
                try await Task.sleep(for: .milliseconds(10))
            }
        }

        /// The cross-check's note names the phases only dyld timed, and says when nothing could be compared
        /// rather than claim agreement.
        @Test func theCrossCheckNoteNamesWhatItSkipped() async throws {
            let (feed, _) = Self.feed([])
            let partly = KdebugLaunchRecorder(feed: feed)
            await partly.tally(0.05, skipped: ["initializers"])
            await partly.tally(0.02, skipped: ["initializers"])
            #expect(
                await partly.crossCheckSummary()
                    == "kdebug cross-check: 2 of 2 launches agree with dyld's printed statistics within 0.1 ms on "
                    + "every phase both time (largest difference 0.05 ms); skipped: initializers, which kdebug does "
                    + "not time on this device's dyld.")
            let (feed2, _) = Self.feed([])
            let none = KdebugLaunchRecorder(feed: feed2)
            await none.tally(nil, skipped: ["dylib loading", "initializers"])
            await none.tally(nil)
            #expect(
                await none.crossCheckSummary()
                    == "kdebug cross-check: none of 2 launches could be compared: kdebug does not time dylib "
                    + "loading, initializers on this device's dyld; 1 without kdebug phases.")
        }

        @Test func anotherAppsExecIsNotThisLaunch() async throws {
            let (feed, _) = Self.feed([try KdebugFixtures.bytes("synth-launch.kdebug")])
            let recorder = KdebugLaunchRecorder(feed: feed)
            let capture = await recorder.capture(executable: "DemoWidget", timeout: .milliseconds(300))
            #expect(capture.phases == nil)
            #expect(capture.warnings == ["kdebug: no exec of DemoWidget in the trace within 0.3 s of the launch"])
        }

        @Test func markForgetsTheLaunchesBefore() async throws {
            let (feed, _) = Self.feed([try KdebugFixtures.bytes("synth-launch.kdebug")])
            let recorder = KdebugLaunchRecorder(feed: feed)
            _ = await recorder.capture(executable: "Demo", timeout: .seconds(5))
            await recorder.mark()
            let capture = await recorder.capture(executable: "Demo", timeout: .milliseconds(100))
            #expect(capture.phases == nil)
            #expect(capture.warnings == ["kdebug: no exec of Demo in the trace within 0.1 s of the launch"])
        }

        /// Events the device dropped make the launch's phases unknowable: none are given, and the count is said.
        @Test func lostEventsLeaveThePhasesEmpty() async throws {
            let chunks = [try KdebugFixtures.bytes("synth-launch.kdebug"), Self.record(.traceLostEvents)]
            let (feed, _) = Self.feed(chunks)
            let recorder = KdebugLaunchRecorder(feed: feed)
            let capture = await recorder.capture(executable: "Demo", timeout: .seconds(5))
            #expect(capture.phases == nil)
            #expect(capture.lostEvents == 1)
            #expect(capture.warnings.contains("kdebug: the device dropped events 1 time(s) during this launch"))
        }

        @Test func aSessionThatFailedSaysWhy() async throws {
            struct Gone: Error, LocalizedError {
                var errorDescription: String? { "the device closed the instruments connection" }
            }
            let (feed, _) = Self.feed([], failure: Gone())
            let recorder = KdebugLaunchRecorder(feed: feed)
            let capture = await recorder.capture(executable: "Demo", timeout: .seconds(5))
            #expect(capture.phases == nil)
            #expect(
                capture.warnings == [
                    "kdebug: the trace session ended: the device closed the instruments connection"
                ])
        }
    }

    @Suite struct PremainSelectionTests {
        @Test(arguments: [
            ("10.3", false, PremainSource?.some(.dyldStatistics)), ("12.5", false, .dyldStatistics),
            ("13.7", false, nil), ("13.7", true, .dyldStatistics), ("14.8", false, .kdebug),
            ("14.8", true, .dyldStatistics), ("15.4", true, .kdebug), ("16.7", false, .kdebug),
            ("26.1", false, .kdebug),
        ])
        func autoTakesDyldsStatisticsWhereTheyPrintAndKdebugElsewhere(
            ios: String, override: Bool, expected: PremainSource?
        ) {
            #expect(PremainSelection.auto.source(for: OSVersion(ios), setsDyldOverride: override) == expected)
        }

        @Test func anExplicitChoiceIsKeptEverywhere() {
            #expect(PremainSelection.kdebug.source(for: OSVersion(12, 5), setsDyldOverride: false) == .kdebug)
            #expect(
                PremainSelection.dyldStatistics.source(for: OSVersion(18, 6), setsDyldOverride: false)
                    == .dyldStatistics)
        }
    }
}
