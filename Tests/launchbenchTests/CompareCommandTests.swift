import Foundation
import LaunchBench
import TestSupport
import Testing

/// `launchbench compare` in-process on results folders written here, its report to a file: every exit code.
@Suite struct CompareCommandTests {
    static func folder(_ samples: [Sample], frameworks: [String] = [], writeSamples: Bool = true) throws -> URL {
        try GateSamples.resultsFolder(samples, frameworks: frameworks, writeSamples: writeSamples)
    }

    /// How `compare arguments` ended, and its report (written to a file, as `--output` does).
    struct Outcome {
        var status: Int32
        /// The message printed after `Error: `, when it failed.
        var message: String?
        var stdout: String
    }

    /// Runs `compare arguments` in-process, the report to a temporary file unless the arguments name one.
    static func run(_ arguments: [String]) async throws -> Outcome {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("compare-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: report) }
        let ending = await InProcessCommand.run(["compare"] + arguments + ["--output", report.path])
        let text = (try? String(contentsOf: report, encoding: .utf8)) ?? ""
        return Outcome(status: ending.status, message: ending.message, stdout: text)
    }

    static let model = EmulatedTimingModel()

    @Test func sameProfilePassesWithExitZero() async throws {
        let a = try Self.folder(GateSamples.cold(Self.model.totals(count: 20, seed: 100)))
        let b = try Self.folder(GateSamples.cold(Self.model.totals(count: 20, seed: 101)))
        defer { for url in [a, b] { try? FileManager.default.removeItem(at: url) } }
        let result = try await Self.run([a.path, b.path])
        let out = result.stdout
        #expect(result.status == 0, "\(out)\(result.message ?? "")")
        #expect(out.contains("Gate: PASSED — 1 unchanged"))
        // summary.json stands for its folder (the launches come from the samples.jsonl next to it).
        try Data("{}".utf8).write(to: a.appendingPathComponent("summary.json"))
        let viaSummary = try await Self.run([a.appendingPathComponent("summary.json").path, b.path])
        #expect(viaSummary.status == 0, "\(viaSummary.message ?? "")")
    }

    @Test func regressionExitsTwoAndWritesJUnitAndMarkdown() async throws {
        let a = try Self.folder(GateSamples.cold(Self.model.totals(count: 20, seed: 200)))
        let b = try Self.folder(GateSamples.cold(Self.model.slower(by: 0.1).totals(count: 20, seed: 201)))
        let junit = a.appendingPathComponent("gate.xml")
        let markdown = a.appendingPathComponent("gate.md")
        defer { for url in [a, b] { try? FileManager.default.removeItem(at: url) } }
        let result = try await Self.run([a.path, b.path, "--junit", junit.path, "--markdown", markdown.path])
        let out = result.stdout
        #expect(result.status == 2, "\(out)\(result.message ?? "")")
        #expect(out.contains("REGRESSION"))
        #expect(try String(contentsOf: junit, encoding: .utf8).contains("<failure message=\"Slower by +"))
        #expect(try String(contentsOf: markdown, encoding: .utf8).hasPrefix("## launchbench gate: FAILED"))
        // A threshold above the change lets it pass.
        #expect(try await Self.run([a.path, b.path, "--threshold", "20"]).status == 0)
        let json = try await Self.run([a.path, b.path, "--format", "json"])
        #expect(json.status == 2)
        let root = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(root?["exit_code"] as? Int == 2)
    }

    @Test func missingBaselineExitsFiveAndNamesThePath() async throws {
        let b = try Self.folder(GateSamples.cold(Self.model.totals(count: 6, seed: 1)))
        defer { try? FileManager.default.removeItem(at: b) }
        let missing = "/nonexistent/launchbench-baseline"
        let result = try await Self.run([missing, b.path])
        #expect(result.status == 5)
        #expect(result.message?.contains("Baseline not found at \(missing)") == true, "\(result.message ?? "")")
        // A baseline folder without launches is no baseline either; a current one is a failed run (3).
        let empty = try Self.folder([], writeSamples: false)
        defer { try? FileManager.default.removeItem(at: empty) }
        let noSamples = try await Self.run([empty.path, b.path])
        #expect(noSamples.status == 5)
        #expect(noSamples.message?.contains("samples.jsonl is missing") == true, "\(noSamples.message ?? "")")
        #expect(try await Self.run([b.path, empty.path]).status == 3)
    }

    @Test func tooFewOrFailedLaunchesExitThree() async throws {
        let a = try Self.folder(GateSamples.cold(Self.model.totals(count: 20, seed: 300)))
        var failing = GateSamples.cold(Self.model.totals(count: 4, seed: 301))
        failing += (5...20).map { GateSamples.make(iteration: $0, status: .crashed) }
        let b = try Self.folder(failing)
        defer { for url in [a, b] { try? FileManager.default.removeItem(at: url) } }
        let result = try await Self.run([a.path, b.path])
        let out = result.stdout
        #expect(result.status == 3, "\(out)")
        #expect(out.contains("Too many launches failed to judge: 16 of 20 in the current run"))
    }

    @Test func usageErrorsExitSixtyFour() async throws {
        #expect(try await Self.run(["a", "b", "--threshold", "-1"]).status == 64)
        let metric = try await Self.run(["a", "b", "--metric", "launch_ms"])
        #expect(metric.status == 64)
        #expect(metric.message?.contains("total_premain_ms") == true, "\(metric.message ?? "")")
        // One folder is an A/B run's (`run --against`); any other is a usage error naming what is missing.
        let one = try await Self.run(["only-one"])
        #expect(one.status == 64)
        #expect(one.message?.contains("compare needs BASELINE and CURRENT, or one A/B run's folder") == true)
        #expect(try await Self.run(["a", "b", "--format", "xml"]).status == 64)
    }

    @Test func anUnlistedDylibFailsTheGateAndIsNamed() async throws {
        let images = ["Sample", "Frameworks/Alamofire.framework/Alamofire"]
        let baseline = Self.model.totals(count: 10, seed: 400).enumerated().map {
            GateSamples.make(iteration: $0 + 1, metrics: [.totalPremainMs: $1], bundleImages: images)
        }
        let current = Self.model.totals(count: 10, seed: 401).enumerated().map {
            GateSamples.make(
                iteration: $0 + 1, metrics: [.totalPremainMs: $1],
                bundleImages: images + ["Frameworks/Evil.framework/Evil"],
                logPath: "logs/UDID-A/\(String(format: "%04d", $0 + 1))-cold.log")
        }
        let a = try Self.folder(baseline, frameworks: ["Alamofire.framework"])
        let b = try Self.folder(current, frameworks: ["Alamofire.framework", "Evil.framework"])
        let list = a.appendingPathComponent("allowed-dylibs.txt")
        try "# approved\nAlamofire.framework\n".write(to: list, atomically: true, encoding: .utf8)
        defer { for url in [a, b] { try? FileManager.default.removeItem(at: url) } }
        let result = try await Self.run([a.path, b.path, "--allowed-dylibs", list.path])
        let out = result.stdout
        #expect(result.status == 2, "\(out)")
        #expect(
            out.contains(
                "Frameworks/Evil.framework is embedded in the app's Frameworks/ folder but not in the allowed-dylibs list."
            ))
        #expect(
            out.contains(
                "Frameworks/Evil.framework/Evil loaded at launch on Lab iPhone (UDID-A), cold launch, iteration 1"))
        #expect(out.contains("logs/UDID-A/0001-cold.log"))
        #expect(try await Self.run([a.path, a.path, "--allowed-dylibs", list.path]).status == 0)
        #expect(try await Self.run([a.path, b.path, "--allowed-dylibs", "/nonexistent/list.txt"]).status == 1)
    }
}
