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
            let events = try #require(object["traceEvents"] as? [[String: Any]])
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

        @Test func leavesOutWhatIsUnknown() throws {
            let records = try KdebugTrace(bytes: KdebugFixtures.bytes("pykdebugparser-dyld.kdebug")).records
            let phases = try #require(DyldLaunchPhases(records: records, timebase: .iPhone))
            let events = ChromeTrace.events(phases)
            #expect(events.map(\.name) == ["dyld launch 0x100970000", "main"])  // no exec: no process creation
            #expect(events.map(\.pid) == [0, 0])
            #expect(events[0].ts == 431.25)
            #expect(events[1].ts == 30_011.208)
        }
    }
}
