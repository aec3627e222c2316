import Foundation
import LaunchBench
import TestSupport
import Testing

/// The README's slower/slowest comparison through the real binary, on the iPhone 5 (iOS 10.3.4), whose cold
/// pre-main is about a second: dyld prints such a total as `1.0 seconds`, and `compare` once saw
/// `1000.0 → 1000.0, +0.0 % [+0.0, +0.0]`. Each side's expected median is worked out here from the launch logs
/// themselves (the sum of the four parts dyld printed in ms), independently of the parser.
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(5))) struct DyldSecondsCompareTests {
    static func launchbench(_ arguments: [String]) async throws -> LaunchbenchCLI.Outcome {
        try await LaunchbenchCLI.run(
            arguments, environment: EndToEnd.withoutPymobiledevice3.merging(["NO_COLOR": "1"]) { $1 },
            timeout: .seconds(240))
    }

    @Test func theIPhone5ComparisonReportsTheRealChange() async throws {
        let root = EndToEnd.temporaryFolder("dyld-seconds")
        defer { try? FileManager.default.removeItem(at: root) }
        let slower = root.appendingPathComponent("slower").path
        let slowest = root.appendingPathComponent("slowest").path
        for (build, output) in [("35", slower), ("36", slowest)] {
            let demo = try await Self.launchbench(["demo", "--build", build, "--output", output])
            #expect(demo.status == 0, "stderr: \(demo.stderr)")
        }
        let compare = try await Self.launchbench(["compare", slower, slowest, "--format", "json"])
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(compare.stdout.utf8)) as? [String: Any], "\(compare.stderr)")
        let rows = try #require(json["comparisons"] as? [[String: Any]])
        let row = try #require(
            rows.first {
                $0["product_type"] as? String == "iPhone5,2" && $0["launch_kind"] as? String == "cold"
                    && $0["metric"] as? String == "total_premain_ms"
            })
        let udid = try #require(row["device_udid"] as? String)
        let (before, printedInSeconds) = try Self.coldPremainFromLogs(slower, udid: udid)
        let (after, moreInSeconds) = try Self.coldPremainFromLogs(slowest, udid: udid)
        #expect(printedInSeconds + moreInSeconds > 0, "no launch over a second: the test would prove nothing")
        let baseline = try #require((row["baseline"] as? [String: Any])?["median_ms"] as? Double)
        let current = try #require((row["current"] as? [String: Any])?["median_ms"] as? Double)
        // Within 0.1 ms: a percentage may put a total a few hundredths above its parts (the unprinted DOF time).
        #expect(abs(baseline - Self.median(before)) <= 0.1, "\(before)")
        #expect(abs(current - Self.median(after)) <= 0.1, "\(after)")
        let change = try #require(row["median_change_percent"] as? Double)
        let real = (Self.median(after) - Self.median(before)) / Self.median(before) * 100
        #expect(abs(change - real) <= 0.05, "\(change) % for \(real) %")
        #expect(change != 0)
    }

    /// Each cold launch's total pre-main: as printed when in ms; when printed in seconds, the sum of the four
    /// parts (all under a second here), which is what dyld added up (dyld-852.2 src/ImageLoader.cpp:1735–1742).
    static func coldPremainFromLogs(_ folder: String, udid: String) throws -> (values: [Double], inSeconds: Int) {
        let logs = URL(fileURLWithPath: folder).appendingPathComponent("logs/\(udid)")
        let names = try FileManager.default.contentsOfDirectory(atPath: logs.path).filter { $0.hasSuffix("-cold.log") }
        var values: [Double] = []
        var inSeconds = 0
        for name in names.sorted() {
            let text = try String(contentsOf: logs.appendingPathComponent(name), encoding: .utf8)
            let lines = text.split(separator: "\n").map(String.init)
            guard let totalLine = lines.firstIndex(where: { $0.hasPrefix("Total pre-main time:") }) else { continue }
            let fields = lines[totalLine].split(separator: " ")
            if fields[4] == "milliseconds" {
                values.append(Double(fields[3])!)
                continue
            }
            inSeconds += 1
            let parts = lines[(totalLine + 1)...(totalLine + 4)].map { line -> Double in
                let words = line.split(separator: ":")[1].split(separator: " ")
                #expect(words[1] == "milliseconds", "\(line)")
                return Double(words[0])!
            }
            values.append(parts.reduce(0, +))
        }
        return (values, inSeconds)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
