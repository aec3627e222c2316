import Foundation
import Testing

@testable import LaunchBench

/// `GateInput.load` keeps a folder's summary and a few counts instead of its `Sample`s; the gate must say
/// what it said from the samples.
@Suite struct GateLaunchesTests {
    /// The mixed fixture, run.json's devices reversed (the summary lists them first; the gate lists devices in
    /// launch order), with bundle images for the dylib guard and pre-main sources.
    static func folder() throws -> URL {
        let dir = try ResultsFixture.copy("mixed")
        let manifestURL = dir.appendingPathComponent("run.json")
        var manifest = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
        manifest["devices"] = Array(try #require(manifest["devices"] as? [Any]).reversed())
        try JSONSerialization.data(withJSONObject: manifest).write(to: manifestURL)
        let samplesURL = dir.appendingPathComponent("samples.jsonl")
        let lines = try String(contentsOf: samplesURL, encoding: .utf8).split(separator: "\n")
        var rewritten: [String] = []
        for (index, line) in lines.enumerated() {
            // The fixture's cut-off and malformed lines stay as they are (the reader skips them with a note).
            guard var object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
                rewritten.append(String(line))
                continue
            }
            object["bundle_images"] = index % 3 == 1 ? ["Sample", "Frameworks/Extra.framework/Extra"] : ["Sample"]
            object["premain_source"] = index % 4 == 0 ? "kdebug" : "dyld-statistics"
            rewritten.append(String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
        }
        try Data((rewritten.joined(separator: "\n") + "\n").utf8).write(to: samplesURL)
        return dir
    }

    @Test func aFolderReadForTheGateReportsAsItsSamplesDo() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let loaded = try GateInput.load(path: dir.path, role: .current)
        let (folder, samples) = try ResultsFolder.loadSamples(dir)
        let kept = GateInput(path: dir.path, folder: folder, samples: samples)
        #expect(loaded.launches.devices.map(\.udid) == ["00008030-001A2D4E0C38802E", "00008110-000E1C2A3C81401E"])
        #expect(loaded.launches.count == samples.count)
        let allowed = AllowedDylibs(parsing: "Sample\n")
        let fromSamples = try GateCheck(baseline: kept, settings: GateSettings(), allowed: allowed).report(
            current: kept)
        // The embedded frameworks, then Extra once per device at its first load.
        #expect(fromSamples.dylibViolations?.filter { $0.image.hasPrefix("Frameworks/Extra") }.count == 2)
        #expect(fromSamples.comparison?.entries.isEmpty == false)
        // The folder's read on either side of the comparison gives the same report.
        #expect(
            try GateCheck(baseline: loaded, settings: GateSettings(), allowed: allowed).report(current: loaded)
                == fromSamples)
        #expect(
            try GateCheck(baseline: kept, settings: GateSettings(), allowed: allowed).report(current: loaded)
                == fromSamples)
    }
}
