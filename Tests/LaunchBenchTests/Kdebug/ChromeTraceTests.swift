import Foundation
import LaunchBench
import Testing

extension KdebugTests {
    @Suite("Chrome trace of a launch")
    struct ChromeTraceTests {
        private func synthPhases() throws -> DyldLaunchPhases {
            let trace = try KdebugFixtures.synth()
            return try #require(
                DyldLaunchPhases(records: trace.records, timebase: .iPhone, threads: trace.header?.threads ?? []))
        }

        /// The fields of the Trace Event Format's JSON Object Format: complete events with ts and dur in µs, an
        /// instant event with a scope, and the file's `displayTimeUnit`.
        @Test func writesTheDocumentedShape() throws {
            let data = try ChromeTrace.json(try synthPhases())
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(Set(object.keys) == ["traceEvents", "displayTimeUnit"])
            #expect(object["displayTimeUnit"] as? String == "ms")
            let all = try #require(object["traceEvents"] as? [[String: Any]])
            // The metadata first: the process and its main thread named for the viewer's tracks.
            let metadata = all.prefix { $0["ph"] as? String == "M" }
            #expect(metadata.map { $0["name"] as? String } == ["process_name", "thread_name"])
            #expect(metadata.map { ($0["args"] as? [String: String])?["name"] } == ["Demo (pid 4243)", "main thread"])
            let events = Array(all.dropFirst(metadata.count))
            #expect(
                events.map { $0["name"] as? String } == [
                    "Process creation", "dyld launch Demo", "Map image A", "Map image B", "Map image C",
                    "Rebase/bind (fixups)", "ObjC setup", "ObjC +load A", "Static initializer B",
                    "Static initializer Demo", "main",
                ])
            for event in events {
                let keys = Set(event.keys)
                if event["ph"] as? String == "X" {
                    #expect(keys == ["name", "ph", "ts", "dur", "pid", "tid", "cat", "args"])
                    #expect((event["dur"] as? Double ?? -1) >= 0)
                } else {
                    #expect(event["ph"] as? String == "i")
                    #expect(keys == ["name", "ph", "ts", "pid", "tid", "cat", "s", "args"])
                    #expect(event["s"] as? String == "p")
                }
                #expect(event["pid"] as? Int == 4243)
                #expect(event["tid"] as? Int == 0x11000)
                #expect(event["args"] is [String: String])
            }
            func timing(_ index: Int) -> [Double?] {
                [events[index]["ts"] as? Double, events[index]["dur"] as? Double]
            }
            #expect(timing(0) == [0, 2000])
            #expect(events[0]["cat"] as? String == "kernel")
            #expect(timing(1) == [2500, 25_500])
            #expect(timing(3) == [4099.958, 2000.042])  // 98 399 → 146 400 ticks
            #expect(timing(5) == [9500, 4000])
            #expect(timing(9) == [20_899.958, 7000.042])
            #expect(timing(10) == [28_000, nil])
            #expect(events[3]["args"] as? [String: String] == ["kind": "MAP_IMAGE", "image": KdebugFixtures.imageB])
            #expect(events[10]["args"] as? [String: String] == ["kind": "LAUNCH_EXECUTABLE END"])
        }

        /// The exact bytes, so the key order and number formatting stay deterministic. Recorded on first run
        /// (or with RECORD_GOLDEN=1), then checked by hand against the synth's durations.
        @Test func matchesTheGoldenFile() throws {
            let data = try ChromeTrace.json(try synthPhases())
            let url = KdebugFixtures.folder.appendingPathComponent("synth-launch.chrome.json")
            if ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1"
                || !FileManager.default.fileExists(atPath: url.path)
            {
                try data.write(to: url)
                Issue.record("recorded \(url.lastPathComponent); check it and run again")
                return
            }
            #expect(String(decoding: data, as: UTF8.self) == String(decoding: try Data(contentsOf: url), as: UTF8.self))
            #expect(try ChromeTrace.json(try synthPhases()) == data)
        }

        /// UIKit's phases after main, a page-in counter that only rises, and an initializer named by its
        /// function when the namer knows it.
        @Test func showsUIKitPhasesPageInsAndNamedInitializers() throws {
            typealias Faults = PageInsTests
            var records = try KdebugFixtures.synth().records
            func uikit(_ code: UInt16, at ms: Double, arg1: UInt64 = 0) -> KdebugRecord {
                KdebugRecord(
                    timestamp: Faults.exec + UInt64(ms * 24_000),
                    debugID: KdebugDebugID(eventClass: 0x2B, subclass: 0x87, code: code), args: [arg1],
                    threadID: Faults.thread)
            }
            records += [
                uikit(90, at: 29, arg1: 0x32), uikit(21, at: 30), uikit(25, at: 31), uikit(26, at: 35),
                uikit(12, at: 36), Faults.firstFrame(at: 40),
            ]
            records += Faults.fault(at: 3, address: Faults.demoText, type: 7)
            records += Faults.fault(at: 3.5, address: Faults.demoText + 0x4000, type: 7)
            records += Faults.fault(at: 30, address: Faults.frameworkB, type: 7)
            let phases = try #require(DyldLaunchPhases(records: records, timebase: .iPhone))
            let events = ChromeTrace.events(phases) { interval in
                guard interval.kind == .staticInitializer else { return nil }
                return interval.image == KdebugFixtures.imageB
                    ? "_GLOBAL__sub_I_B.cpp" : interval.image == KdebugFixtures.mainExecutable ? "0x4a20" : nil
            }
            let uikitNames = events.filter { $0.cat == "uikit" && $0.ph == "X" }.map(\.name)
            #expect(
                uikitNames == [
                    "UIKit initialization", "UIKit scene creation", "didFinishLaunchingWithOptions()",
                    "UIKit scene creation", "Initial frame rendering",
                ])
            let counter = events.filter { $0.ph == "C" }
            #expect(counter.map(\.ts) == [0, 4000, 31_000])
            #expect(counter.map { $0.args["page-ins"] } == [.number(0), .number(2), .number(3)])
            #expect(events.contains { $0.name == "Static initializer _GLOBAL__sub_I_B.cpp" })
            #expect(events.contains { $0.name == "Static initializer 0x4a20 in Demo" })
            #expect(events.contains { $0.name == "ObjC +load A" })
            #expect(KdebugFixtures.ns(phases.didFinishLaunchingMs) == 35_000_000)
            let data = try ChromeTrace.json(phases)
            #expect(String(decoding: data, as: UTF8.self).contains(#""args":{"page-ins":2}"#))
        }

        /// Without UIKit's codes, LaunchProbe's markers draw the after-main stretches, their `main` aligned with
        /// dyld's (the markers count from the process's start, the trace from the exec).
        @Test func drawsTheMarkersWhenUIKitGaveNoPhases() throws {
            let phases = try synthPhases()  // main at 28 ms from the exec, no UIKit codes
            let markers = ChromeTrace.Markers(mainMs: 30, didFinishLaunchingMs: 130.5, firstFrameMs: 180)
            let spans = ChromeTrace.events(phases, markers: markers).filter { $0.cat == "launchprobe" }
            #expect(spans.map(\.name) == ["main → didFinishLaunching", "didFinishLaunching → first frame"])
            #expect(spans.map(\.ts) == [28_000, 128_500])
            #expect(spans.map(\.dur) == [100_500, 49_500])
            let noFrame = ChromeTrace.Markers(mainMs: 30, didFinishLaunchingMs: nil, firstFrameMs: 180)
            #expect(
                ChromeTrace.events(phases, markers: noFrame).filter { $0.cat == "launchprobe" }.map(\.name) == [
                    "main → first frame"
                ])
        }

        @Test func leavesOutWhatIsUnknown() throws {
            let records = try KdebugTrace(bytes: KdebugFixtures.bytes("pykdebugparser-dyld.kdebug")).records
            let phases = try #require(DyldLaunchPhases(records: records, timebase: .iPhone))
            let events = ChromeTrace.events(phases).filter { $0.ph != "M" }
            #expect(events.map(\.name) == ["dyld launch 0x100970000", "main"])  // no exec: no process creation
            #expect(events.map(\.pid) == [0, 0])
            #expect(events[0].ts == 431.25)
            #expect(events[1].ts == 30_011.208)
        }
    }
}
