import Foundation
import TestSupport
import Testing

@testable import LaunchBench

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `Trend` over five results folders: one real step (+20 % from run 4 on), noise elsewhere.
@Suite struct TrendTests {
    /// A deterministic generator (SplitMix64), so the noise is the same on every run of the test.
    struct Noise {
        var state: UInt64
        mutating func next() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
        /// Roughly normal, sd 1 (sum of 12 uniforms − 6).
        mutating func gaussian() -> Double { (0..<12).reduce(0) { acc, _ in acc + next() } - 6 }
    }

    static let name = "=Ana's <iPhone>"

    /// Writes `samples.jsonl` of 20 cold launches around `median` ms (3 % noise), started on day `day`.
    static func folder(
        _ root: URL, _ label: String, median: Double, day: Int, udid: String, seed: UInt64,
        osVersion: String = "14.8", productType: String = "iPhone12,1", app: String = "com.example.app",
        trailing: String = "", premainSource: PremainSource? = nil
    ) throws -> String {
        let url = root.appendingPathComponent(label)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        var noise = Noise(state: seed)
        let lines = try (1...20).map { i -> String in
            let value = median * (1 + 0.03 * noise.gaussian())
            var sample = Sample(
                runID: label, deviceUDID: udid, deviceName: name, productType: productType, osVersion: osVersion,
                appBundleID: app, appVersion: "1.0 (\(label))", iteration: i, kind: .cold, status: .ok,
                metrics: [.totalPremainMs: value], startedAt: Date(timeIntervalSince1970: Double(day * 86_400 + i)))
            sample.premainSource = premainSource
            return String(decoding: try JSONCoding.encoder().encode(sample), as: UTF8.self)
        }
        try Data((lines.joined(separator: "\n") + "\n" + trailing).utf8).write(
            to: url.appendingPathComponent("samples.jsonl"))
        return url.path
    }

    static func make() throws -> (Trend, URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("trend-\(UUID().uuidString)")
        // Given out of order; run 3 on another phone of the same model and iOS (matched like the gate).
        let paths = [
            try folder(root, "b4", median: 240, day: 4, udid: "UDID-A", seed: 4),
            try folder(root, "b1", median: 200, day: 1, udid: "UDID-A", seed: 1),
            try folder(root, "b2", median: 200, day: 2, udid: "UDID-A", seed: 2),
            try folder(root, "b3", median: 201, day: 3, udid: "UDID-B", seed: 3),
            try folder(root, "b5", median: 241, day: 5, udid: "UDID-A", seed: 5),
            root.appendingPathComponent("missing").path,
        ]
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("empty"), withIntermediateDirectories: true)
        return (Trend(paths: paths + [root.appendingPathComponent("empty").path]), root)
    }

    @Test func theRealStepIsMarkedAndTheNoiseIsNot() throws {
        let (trend, root) = try Self.make()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(trend.runs.map { URL(fileURLWithPath: $0.path).lastPathComponent } == ["b1", "b2", "b3", "b4", "b5"])
        #expect(trend.skipped.map { URL(fileURLWithPath: $0.path).lastPathComponent } == ["missing", "empty"])
        #expect(
            trend.skipped.allSatisfy {
                $0.reason.contains("samples.jsonl") || $0.reason.contains("not found")
                    || $0.reason.contains("Results folder")
            })
        let series = try #require(trend.series.first { $0.metric == .totalPremainMs })
        #expect(trend.series.count == 1)
        #expect(series.points.count == 5)
        #expect(series.points.map(\.isStep) == [false, false, false, true, false])
        #expect(series.points[2].device.udid == "UDID-B")
        let step = try #require(series.points[3].change)
        #expect(step.verdict == .regression)
        #expect((15...25).contains(try #require(step.shiftPercent)))
        for point in series.points {
            #expect(point.n == 20 && point.ci95Low != nil && point.ci95High != nil)
            #expect(point.ci95Low! <= point.median! && point.median! <= point.ci95High!)
        }
    }

    @Test func byBuildTheAppsBuildNumberOrdersTheRuns() throws {
        #expect(Trend.compareBuilds("9", "10") < 0 && Trend.compareBuilds("10", "10.1") < 0)
        #expect(Trend.compareBuilds("b2", "b10") < 0 && Trend.compareBuilds("35", "35") == 0)
        let (byTime, root) = try Self.make()
        defer { try? FileManager.default.removeItem(at: root) }
        // The folders' app versions are `1.0 (b1)` … `1.0 (b5)`; reorder by giving later builds earlier days.
        let paths = byTime.runs.map(\.path)
        let folders = try paths.map { try ResultsFolder.loadSamples(URL(fileURLWithPath: $0)) }
        for (index, (folder, samples)) in folders.enumerated() {
            let lines = try samples.map { sample in
                var s = sample
                s.startedAt = Date(timeIntervalSince1970: Double(100 - index) * 86_400)
                return String(decoding: try JSONCoding.encoder().encode(s), as: UTF8.self)
            }
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(
                to: folder.url.appendingPathComponent("samples.jsonl"))
        }
        let byBuild = Trend(paths: paths.reversed(), order: .build)
        #expect(byBuild.runs.map { URL(fileURLWithPath: $0.path).lastPathComponent } == ["b1", "b2", "b3", "b4", "b5"])
        let reversedTime = Trend(paths: paths, order: .time)
        #expect(
            reversedTime.runs.map { URL(fileURLWithPath: $0.path).lastPathComponent } == ["b5", "b4", "b3", "b2", "b1"])
    }

    @Test func outputsMarkTheStepAndEscapeNames() throws {
        let (trend, root) = try Self.make()
        defer { try? FileManager.default.removeItem(at: root) }
        let csv = TrendReport.csv(trend).text.components(separatedBy: "\r\n")
        #expect(csv[0] == TrendReport.csvHeader.joined(separator: ","))
        #expect(csv.filter { $0.contains(",regression,") }.count == 1)
        #expect(csv.dropFirst().filter { !$0.isEmpty }.allSatisfy { $0.contains(",'=Ana's <iPhone>,") })
        let markdown = TrendReport.markdown(trend)
        #expect(markdown.contains("**step +"))
        #expect(markdown.contains("### Skipped folders"))
        #expect(markdown.contains("\\<iPhone\\>"))
        let html = TrendReport.html(trend)
        #expect(html.contains("=Ana&#39;s &lt;iPhone&gt;"))
        #expect(!html.contains("<iPhone>"))
        #expect(html.components(separatedBy: "class=\"step\"").count == 2)  // one ring
        #expect(html.contains("class=\"band\""))
        #expect(html.contains("Skipped folders"))
        // Well-formed XML, as report.html is.
        let parser = XMLParser(data: Data(html.utf8))
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
    }

    /// Trend reads a folder's summary rather than keeping its samples; the summary lists run.json's devices
    /// first, yet the series still follow the order the launches first name the devices, as they did.
    @Test func seriesFollowTheLaunchesDeviceOrderNotRunJSONs() throws {
        let dir = try ResultsFixture.copy("mixed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let manifestURL = dir.appendingPathComponent("run.json")
        var manifest = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
        manifest["devices"] = Array(try #require(manifest["devices"] as? [Any]).reversed())
        try JSONSerialization.data(withJSONObject: manifest).write(to: manifestURL)
        let trend = Trend(paths: [dir.path])
        #expect(trend.skipped.isEmpty)
        var order: [String] = []
        for udid in trend.series.map(\.device.udid) where order.last != udid { order.append(udid) }
        #expect(order == ["00008030-001A2D4E0C38802E", "00008110-000E1C2A3C81401E"])
    }
}
