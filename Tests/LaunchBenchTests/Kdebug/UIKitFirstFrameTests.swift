import Foundation
import Testing

@testable import LaunchBench

extension KdebugTests {
    /// UIKit's first frame as real phones send it (issue 50): the first Initial Frame Rendering END (0x31CA0006)
    /// on the thread that ran main after UIKit's BEGIN (0x2B870030); an END before the BEGIN is a stray
    /// (py-ios-device PR #127), kept and counted, never the frame; without a BEGIN, the first END after
    /// didFinishLaunching (code 26), said to be unanchored.
    @Suite struct UIKitFirstFrameTests {
        typealias Faults = PageInsTests
        /// The synth launch's main (LAUNCH_EXECUTABLE END) is 28 ms after its exec.
        static let otherThread: UInt64 = 0x11001

        static func uikit(_ code: UInt16, at ms: Double, arg1: UInt64 = 0, thread: UInt64 = Faults.thread)
            -> KdebugRecord
        {
            KdebugRecord(
                timestamp: Faults.exec + UInt64(ms * 24_000),
                debugID: KdebugDebugID(eventClass: 0x2B, subclass: 0x87, code: code), args: [arg1], threadID: thread)
        }

        static func end(at ms: Double, thread: UInt64 = Faults.thread) -> KdebugRecord {
            var record = Faults.firstFrame(at: ms)
            record.threadID = thread
            return record
        }

        /// main at 28 ms, UIKit's sequence on the main thread: didFinishLaunching ends at 35 ms, BEGIN at 36 ms.
        static func launch(_ extra: [KdebugRecord], begin: Bool = true, didFinish: Bool = true) throws
            -> DyldLaunchPhases
        {
            var records = try KdebugFixtures.synth().records
            records += [uikit(90, at: 29, arg1: 0x32), uikit(21, at: 30), uikit(25, at: 31)]
            if didFinish { records.append(uikit(26, at: 35)) }
            if begin { records.append(uikit(12, at: 36)) }
            return try #require(DyldLaunchPhases(records: records + extra, timebase: .iPhone))
        }

        /// The END before the BEGIN (at 32 ms, inside didFinishLaunching) is a stray; the frame is the END after
        /// the BEGIN, and no phase ends at the stray.
        @Test func anEndBeforeTheBeginIsAStrayNotTheFirstFrame() throws {
            let phases = try Self.launch([Self.end(at: 32), Self.end(at: 40), Self.end(at: 56.7)])
            #expect(KdebugFixtures.ns(phases.firstFrameMs) == 40_000_000)
            #expect(phases.firstFrameSource == .uikitAnchored)
            #expect(phases.strayFrameEndTimestamps == [Faults.exec + 32 * 24_000])
            #expect(phases.frameBeginTimestamp == Faults.exec + 36 * 24_000)
            let spans = phases.uikitSpans.map { "\($0.name) \(($0.endTimestamp - Faults.exec) / 24_000)" }
            #expect(
                spans == [
                    "UIKit initialization 30", "UIKit scene creation 31", "didFinishLaunchingWithOptions() 35",
                    "UIKit scene creation 36", "Initial frame rendering 40",
                ])
            #expect(!phases.warnings.contains { $0.contains("Initial Frame Rendering") }, "\(phases.warnings)")
        }

        /// No BEGIN: the first END after didFinishLaunching, said to be unanchored; an END before code 26 is a
        /// stray still.
        @Test func withoutABeginTheFirstEndAfterDidFinishLaunchingIsUnanchored() throws {
            let phases = try Self.launch([Self.end(at: 33), Self.end(at: 38)], begin: false)
            #expect(KdebugFixtures.ns(phases.firstFrameMs) == 38_000_000)
            #expect(phases.firstFrameSource == .uikitUnanchored)
            #expect(phases.strayFrameEndTimestamps.count == 1)
            #expect(phases.warnings.contains { $0.contains("BEGIN (0x2B870030) never came") }, "\(phases.warnings)")
            #expect(phases.uikitSpans.last?.name == "UIKit scene creation")
            #expect(phases.uikitSpans.last?.endTimestamp == Faults.exec + 38 * 24_000)
        }

        /// Neither a BEGIN nor code 26: an END cannot be told from a stray, so kdebug gives no first frame, and
        /// says why; page-ins then run to the end of the capture.
        @Test func withNeitherBeginNorDidFinishLaunchingNoEndIsTheFrame() throws {
            let phases = try Self.launch([Self.end(at: 33)], begin: false, didFinish: false)
            #expect(phases.firstFrameMs == nil && phases.firstFrameSource == nil)
            #expect(phases.warnings.contains { $0.contains("1 Initial Frame Rendering END(s) after main") })
        }

        /// Only the thread that ran main counts: a BEGIN and END on another thread of the app, or in another
        /// process, neither anchor nor end the launch.
        @Test func onlyTheMainThreadCounts() throws {
            let phases = try Self.launch(
                [
                    Self.uikit(12, at: 32, thread: Self.otherThread), Self.end(at: 33, thread: Self.otherThread),
                    Self.end(at: 37, thread: 0x999), Self.end(at: 42),
                ])
            #expect(KdebugFixtures.ns(phases.firstFrameMs) == 42_000_000)
            #expect(phases.frameBeginTimestamp == Faults.exec + 36 * 24_000)
            #expect(phases.strayFrameEndTimestamps.isEmpty)
        }

        static func sample(firstFrameMarker: Double? = nil) -> Sample {
            var sample = Sample(
                runID: "r", deviceUDID: "u", deviceName: "n", productType: "iPhone15,2", osVersion: "17.5",
                appBundleID: "b", appVersion: "1", iteration: 1, kind: .cold, status: .ok, startedAt: Date())
            if let firstFrameMarker {
                sample.metrics[.firstFrameMs] = firstFrameMarker
                sample.firstFrameSource = .markers
            }
            return sample
        }

        /// The anchored frame takes the column; LaunchProbe's marker checks it (past 1 ms and 2 % it warns).
        @Test func anAnchoredFrameTakesTheColumnAndTheMarkerChecksIt() throws {
            let phases = try Self.launch([Self.end(at: 32), Self.end(at: 40)])
            var agreeing = Self.sample(firstFrameMarker: 40.5)
            KdebugSampling.applyFirstFrame(phases, to: &agreeing)
            #expect(agreeing[.firstFrameMs] == 40 && agreeing.firstFrameSource == .uikitAnchored)
            #expect(agreeing.strayFrameEnds == 1)
            #expect(agreeing.warnings.isEmpty)
            var far = Self.sample(firstFrameMarker: 60)
            KdebugSampling.applyFirstFrame(phases, to: &far)
            #expect(far[.firstFrameMs] == 40)
            #expect(
                far.warnings.contains { $0.contains("UIKit's first frame (40 ms, uikit-anchored)") }, "\(far.warnings)")
            var bare = Self.sample()
            KdebugSampling.applyFirstFrame(phases, to: &bare)
            #expect(bare[.firstFrameMs] == 40 && bare.firstFrameSource == .uikitAnchored)
        }

        /// An unanchored frame never overrides LaunchProbe's marker; without one it fills the column, said so.
        @Test func anUnanchoredFrameGivesWayToTheMarker() throws {
            let phases = try Self.launch([Self.end(at: 38)], begin: false)
            var marked = Self.sample(firstFrameMarker: 60)
            KdebugSampling.applyFirstFrame(phases, to: &marked)
            #expect(marked[.firstFrameMs] == 60 && marked.firstFrameSource == .markers)
            #expect(marked.warnings.contains { $0.contains("uikit-unanchored") })
            var bare = Self.sample()
            KdebugSampling.applyFirstFrame(phases, to: &bare)
            #expect(bare[.firstFrameMs] == 38 && bare.firstFrameSource == .uikitUnanchored)
            #expect(bare.strayFrameEnds == 0)
        }

        /// The timeline keeps the stray where it came, as an instant, and says the frame was anchored.
        @Test func theTimelineShowsTheStrayAsAnInstant() throws {
            let phases = try Self.launch([Self.end(at: 32), Self.end(at: 40)])
            let events = ChromeTrace.events(phases)
            let strays = events.filter { $0.name == "stray frame END" }
            #expect(strays.map(\.ts) == [32_000] && strays.allSatisfy { $0.ph == "i" })
            let frame = try #require(events.first { $0.name == "first frame" })
            #expect(frame.ts == 40_000)
            #expect(
                frame.args["kind"]
                    == .text("Initial Frame Rendering END (0x31CA0006), after UIKit's BEGIN (0x2B870030)"))
        }

        /// samples.jsonl and samples.csv carry the source and the stray count; absent when not measured.
        @Test func theSampleRecordsSourceAndStrays() throws {
            var sample = Self.sample()
            sample.metrics[.firstFrameMs] = 40
            sample.firstFrameSource = .uikitAnchored
            sample.strayFrameEnds = 2
            let line = String(decoding: try JSONEncoder().encode(sample), as: UTF8.self)
            #expect(line.contains(#""first_frame_source":"uikit-anchored""#) && line.contains(#""stray_frame_ends":2"#))
            let back = try JSONDecoder().decode(Sample.self, from: Data(line.utf8))
            #expect(back.firstFrameSource == .uikitAnchored && back.strayFrameEnds == 2)
            let row = SamplesCSV.fields(sample).map(CSVWriter.render)
            let header = SamplesCSV.header
            let source = try #require(header.firstIndex(of: "first_frame_source"))
            let strays = try #require(header.firstIndex(of: "stray_frame_ends"))
            #expect(row[source] == "uikit-anchored" && row[strays] == "2")
            let plain = SamplesCSV.fields(Self.sample()).map(CSVWriter.render)
            #expect(plain[source] == "" && plain[strays] == "")
            #expect(!String(decoding: try JSONEncoder().encode(Self.sample()), as: UTF8.self).contains("first_frame"))
        }
    }
}
