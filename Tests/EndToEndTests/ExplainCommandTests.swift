import Foundation
import LaunchBench
import TestSupport
import Testing

/// The README's recipe through the real binary: a demo baseline, a demo of build 35 (one more framework
/// with a slow initializer), `compare` naming it, and `trend` over both. Without pymobiledevice3: its Python
/// beside every other suite was the suite's largest CPU cost, and the iOS 17+ and kdebug paths of the demo
/// are `DemoCommandTests`' and `KdebugEndToEndTests`' subject.
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(5))) struct ExplainCommandTests {
    static func launchbench(_ arguments: [String]) async throws -> (status: Int32?, out: String, err: String) {
        let outcome = try await LaunchbenchCLI.run(
            arguments, environment: EndToEnd.withoutPymobiledevice3.merging(["NO_COLOR": "1"]) { $1 })
        return (outcome.status, outcome.stdout, outcome.stderr)
    }

    @Test func theSlowerBuildsComparisonNamesTheNewDylib() async throws {
        let root = EndToEnd.temporaryFolder("explain")
        defer { try? FileManager.default.removeItem(at: root) }
        let base = root.appendingPathComponent("base").path
        let slower = root.appendingPathComponent("slower").path
        let first = try await Self.launchbench(["demo", "--iterations", "6", "--seed", "3", "--output", base])
        #expect(first.status == 0, "stderr: \(first.err)")
        #expect(first.out.contains("Embedded dylibs loaded at launch: 3"))
        let second = try await Self.launchbench([
            "demo", "--iterations", "6", "--seed", "4", "--build", "35", "--output", slower,
        ])
        #expect(second.status == 0, "stderr: \(second.err)")
        #expect(second.out.contains("Embedded dylibs loaded at launch: 4"))
        #expect(second.out.contains("Analytics.framework"))

        let junitPath = root.appendingPathComponent("gate.xml").path
        let compare = try await Self.launchbench(["compare", base, slower, "--junit", junitPath])
        #expect(compare.status == 2, "stderr: \(compare.err)")
        #expect(compare.out.contains(", of which dylib loading +"))
        #expect(compare.out.contains("new bundle dylib Analytics.framework"))
        let junit = try String(contentsOfFile: junitPath, encoding: .utf8)
        #expect(junit.contains("new bundle dylib Analytics.framework"))

        let images = try String(contentsOfFile: slower + "/images.csv", encoding: .utf8)
        #expect(images.contains(",Frameworks/Analytics.framework/Analytics,true,"))

        let trend = try await Self.launchbench([
            "trend", slower, base, root.appendingPathComponent("nope").path, "--format", "csv",
        ])
        #expect(trend.status == 0, "stderr: \(trend.err)")
        #expect(trend.err.contains("skipped"))
        let rows = trend.out.components(separatedBy: "\r\n").filter { $0.contains(",cold,total_premain_ms,") }
        // Devices with pre-main phases: the three whose dyld prints its statistics (without pymobiledevice3 the
        // iOS 16 phone has markers only); each in two runs.
        let measured = 3
        #expect(rows.count == measured * 2)
        #expect(rows.first?.hasPrefix("1,\(base),") == true)  // in the order the runs started, not as given
        #expect(rows.filter { $0.contains(",regression,") }.count == measured)
    }
}
