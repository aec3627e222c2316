import Foundation
import TestSupport
import Testing

@testable import LaunchBench

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite(.tags(.subprocess)) struct GateReportTests {
    /// Two devices: one regressed (cold), one with too few launches, a device name full of markup,
    /// and an unlisted dylib.
    static func sampleReport() -> GateReport {
        let model = EmulatedTimingModel()
        let nasty = "Ana's <iPhone> & \"lab\" | #1 `x`"
        var baseline = GateSamples.cold(model.totals(count: 20, seed: 1))
        var current = GateSamples.cold(model.slower(by: 0.12).totals(count: 20, seed: 2))
        baseline += [400.0, 401, 402].enumerated().map {
            GateSamples.make(
                udid: "B", name: nasty, productType: "iPhone10,1", os: "13.7", iteration: $0 + 1,
                metrics: [.totalPremainMs: $1])
        }
        current += [400.0, 401, 402].enumerated().map {
            GateSamples.make(
                udid: "B", name: nasty, productType: "iPhone10,1", os: "13.7", iteration: $0 + 1,
                metrics: [.totalPremainMs: $1])
        }
        let comparison = GateComparison(baseline: baseline, current: current)
        let violation = DylibGuard.Violation(
            image: "Frameworks/Evil.framework/Evil", deviceUDID: "UDID-A", deviceName: "Lab iPhone", iteration: 2,
            kind: .cold,
            logPath: "logs/UDID-A/0002-cold.log")
        return GateReport(
            baselinePath: "base/", currentPath: "cur/", comparison: comparison, dylibViolations: [violation])
    }

    @Test func reportVerdictsAndOutcome() {
        let report = Self.sampleReport()
        #expect(report.comparison?.entries.map(\.verdict) == [.regression, .insufficientData])
        #expect(report.outcome == .failed)
        #expect(report.headline == "Gate: FAILED — 1 regression, 1 not judged (insufficient data), 1 unlisted dylib")
    }

    @Test func tableNamesEveryVerdictAndTheDylib() {
        let text = GateTableReport.render(Self.sampleReport())
        #expect(text.contains("REGRESSION"))
        #expect(text.contains("insufficient data"))
        #expect(text.contains("Frameworks/Evil.framework/Evil loaded at launch on Lab iPhone (UDID-A)"))
        #expect(text.hasSuffix("Gate: FAILED — 1 regression, 1 not judged (insufficient data), 1 unlisted dylib\n"))
    }

    @Test func markdownTableIsNotBrokenByDeviceNames() {
        let text = GateMarkdownReport.render(Self.sampleReport())
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("| ") }
        #expect(rows.count == 3)
        for row in rows {
            // Unescaped pipes separate the 9 columns: 10 of them per row.
            let unescaped = row.enumerated().filter { index, c in
                c == "|" && (index == 0 || row[row.index(row.startIndex, offsetBy: index - 1)] != "\\")
            }
            #expect(unescaped.count == 10, "\(row)")
        }
        #expect(text.contains("\\<iPhone\\>"))
    }

    @Test func jsonHasTheDocumentedShape() throws {
        let text = GateJSONReport.render(Self.sampleReport(), exitCode: 2)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(root["outcome"] as? String == "failed")
        #expect(root["exit_code"] as? Int == 2)
        let comparisons = try #require(root["comparisons"] as? [[String: Any]])
        #expect(comparisons.count == 2)
        #expect(comparisons[0]["verdict"] as? String == "regression")
        #expect(comparisons[0]["metric"] as? String == "total_premain_ms")
        #expect((comparisons[0]["p_value"] as? Double ?? 1) < 0.05)
        #expect(comparisons[1]["verdict"] as? String == "insufficient-data")
        #expect(comparisons[1]["shift_ci_low_ms"] is NSNull)
        let guardResult = try #require(root["dylib_guard"] as? [String: Any])
        #expect(guardResult["passed"] as? Bool == false)
    }

    #if canImport(FoundationXML) || os(macOS)
        @Test func junitHasOneCasePerComparisonAndAFailureOnRegression() throws {
            let xml = GateJUnitReport.render(Self.sampleReport(), timestamp: GateSamples.start)
            let document = try XMLDocument(xmlString: xml, options: [])
            let root = try #require(document.rootElement())
            #expect(root.name == "testsuites")
            let suites = root.elements(forName: "testsuite")
            #expect(suites.count == 1)
            let suite = suites[0]
            let cases = suite.elements(forName: "testcase")
            #expect(cases.count == 3)  // 2 comparisons + 1 unlisted dylib
            #expect(suite.attribute(forName: "tests")?.stringValue == "3")
            #expect(suite.attribute(forName: "failures")?.stringValue == "2")
            #expect(suite.attribute(forName: "errors")?.stringValue == "1")
            #expect(suite.attribute(forName: "timestamp")?.stringValue == "2027-01-15T08:00:00")
            #expect(
                cases[0].elements(forName: "failure").first?.attribute(forName: "type")?.stringValue == "regression")
            #expect(
                cases[1].elements(forName: "error").first?.attribute(forName: "type")?.stringValue
                    == "insufficient-data")
            // The device name survives escaping intact.
            #expect(
                cases[1].attribute(forName: "name")?.stringValue?.hasPrefix("Ana's <iPhone> & \"lab\" | #1 `x` (B)")
                    == true)
            #expect(
                cases[2].attribute(forName: "name")?.stringValue
                    == "dylib guard: Frameworks/Evil.framework/Evil on UDID-A")
            // Required attributes of the common schema.
            for testcase in cases { #expect(testcase.attribute(forName: "name") != nil) }
            #expect(suite.attribute(forName: "name") != nil)
        }
    #endif

    @Test(.enabled(if: GateReportTests.python != nil)) func junitValidatesAgainstTheSchema() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gate-junit-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: file) }
        try GateJUnitReport.render(Self.sampleReport()).write(to: file, atomically: true, encoding: .utf8)
        let script = PackageRoot.at("Scripts/validate-junit.py")
        let python = try #require(Self.python)
        let (status, output) = try Self.run(python, [script.path, file.path])
        #expect(status == 0, "\(output)")
        #expect(output.contains("valid"))
    }

    /// A Python that has xmlschema: the system's (Scripts/bootstrap installs python3-xmlschema), or another
    /// one on PATH (e.g. pyenv's, which does not see Debian's packages).
    static let python: String? = {
        let onPath = (try? run("/usr/bin/env", ["which", "python3"]).1.trimmingCharacters(in: .whitespacesAndNewlines))
        return ["/usr/bin/python3", onPath].compactMap { $0 }.filter { !$0.isEmpty }.first { candidate in
            (try? run(candidate, ["-c", "import xmlschema"]).0) == 0
        }
    }()

    static func run(_ executable: String, _ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
