import Foundation
import Testing

@testable import LaunchBench

/// The one way a run ends: the exports and the gate from a single read of the folder, and a verdict that
/// puts an interruption first, the gate's judgement next and the launches' completeness last.
@Suite struct RunConclusionTests {
    /// A results folder of `udids`' launches (cold, first_frame_ms around `median`), with run.json.
    static func run(
        udids: [String] = ["UDID-A"], iterations: Int = 10, median: Double = 300, status: SampleStatus = .ok,
        options: RunManifest.Options? = nil, frameworks: [String] = [], interrupted: Bool = false
    ) async throws -> RunResult {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("conclusion-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = try ResultsStore(folder: folder)
        var counts = LaunchCounts()
        // Devices interleaved as a parallel run writes them; run.json lists them in the run's order.
        for i in stride(from: 1, through: iterations, by: 1) {
            for udid in udids.reversed() {
                let sample = Sample(
                    runID: "r", deviceUDID: udid, deviceName: "Phone \(udid)", productType: "iPhone12,1",
                    osVersion: "16.7", appBundleID: "com.example.app", appVersion: "1.0", iteration: i, kind: .cold,
                    status: status, metrics: status == .ok ? [.firstFrameMs: median + Double(i % 5)] : [:],
                    startedAt: Date(timeIntervalSince1970: Double(i)))
                try await store.append(sample)
                counts.count(sample)
            }
        }
        let manifest = RunManifest(
            runID: "r", app: RunManifest.App(bundleID: "com.example.app", frameworks: frameworks), options: options,
            devices: udids.map {
                DeviceInfo(
                    udid: $0, name: "Phone \($0)", productType: "iPhone12,1", osVersion: "16.7", buildVersion: "20H19")
            },
            deviceOutcomes: udids.map {
                RunManifest.DeviceOutcome(udid: $0, outcome: interrupted ? .interrupted : .measured)
            },
            interrupted: interrupted)
        try await store.writeManifest(manifest)
        return RunResult(folder: folder, manifest: manifest, counts: counts)
    }

    @Test func withoutAGateTheExportsAreWrittenAndNoLaunchIsKept() async throws {
        let conclusion = RunConclusion.conclude(try await Self.run(), gate: nil)
        let exports = try #require(conclusion.exports)
        #expect(exports.samples.isEmpty)
        #expect(exports.written.map(\.lastPathComponent).contains("summary.json"))
        #expect(conclusion.current == nil && conclusion.report == nil)
        #expect(conclusion.verdict == .measured)
    }

    @Test func theGateWithoutABaselineReportsTheGuardAndTheSampleSizesFromRunJSON() async throws {
        let result = try await Self.run(
            udids: ["UDID-A", "UDID-B"], options: RunManifest.Options(targetPrecisionPercent: 5, maxIterations: 10),
            frameworks: ["Extra.framework"])
        let gate = GateCheck(settings: GateSettings(), allowed: AllowedDylibs(parsing: "Listed.framework\n"))
        let conclusion = RunConclusion.conclude(result, gate: gate)
        let report = try #require(conclusion.report)
        #expect(report.comparison == nil)
        #expect(report.dylibViolations?.map(\.image) == ["Frameworks/Extra.framework"])
        // In run.json's device order, although UDID-B's launches came first in samples.jsonl.
        #expect(report.sampleSizes.count == 2)
        #expect(report.sampleSizes.first?.hasPrefix("Phone UDID-A (UDID-A): ") == true)
        #expect(report.sampleSizes.first?.contains("cold median known within") == true)
        #expect(conclusion.current?.launches.count == 20)  // the exports' read, kept
        #expect(conclusion.verdict == .judged(.failed))
    }

    @Test func aPassedGuardAloneLeavesTheVerdictToTheLaunches() async throws {
        let gate = GateCheck(settings: GateSettings(), allowed: AllowedDylibs(parsing: "*\n"))
        let measured = RunConclusion.conclude(try await Self.run(), gate: gate)
        #expect(measured.report?.dylibViolations == [])
        #expect(measured.verdict == .measured)
        let unmeasured = RunConclusion.conclude(try await Self.run(status: .noMetrics), gate: gate)
        #expect(unmeasured.verdict == .incomplete(unmeasured: 10, total: 10))
    }

    @Test func aBaselineComparisonDecidesAndAnEmptyRunCannotBeCompared() async throws {
        let baselineRun = try await Self.run(median: 300)
        let baseline = try GateInput.load(path: baselineRun.folder.path, role: .baseline)
        let slower = RunConclusion.conclude(
            try await Self.run(median: 400), gate: GateCheck(baseline: baseline, settings: GateSettings()))
        #expect(slower.report?.comparison?.regressions.count == 1)
        #expect(slower.verdict == .judged(.failed))

        let empty = RunConclusion.conclude(
            try await Self.run(iterations: 0), gate: GateCheck(baseline: baseline, settings: GateSettings()))
        #expect(empty.report == nil)
        #expect(
            (empty.gateFailure as? GateError).map { if case .noLaunches(_, .current, _) = $0 { true } else { false } }
                == true)
    }

    @Test func anInterruptionComesFirstAndSkipsTheGate() async throws {
        let gate = GateCheck(settings: GateSettings(), allowed: AllowedDylibs(parsing: ""))
        let signalled = RunConclusion.conclude(
            try await Self.run(frameworks: ["Extra.framework"]), gate: gate, signal: SIGTERM)
        #expect(signalled.verdict == .interrupted(signal: SIGTERM))
        #expect(signalled.report == nil && signalled.exports != nil)
        let cancelled = RunConclusion.conclude(try await Self.run(interrupted: true), gate: gate)
        #expect(cancelled.verdict == .interrupted(signal: nil))
    }

    /// The reference app's launches that cannot be read are said, not left out in silence.
    @Test func unreadableReferenceLaunchesAreNamed() async throws {
        let result = try await Self.run()
        let reference = result.folder.appendingPathComponent(RunManifest.referenceFolderName)
        // A folder where samples.jsonl should be: present, but not readable as a file.
        try FileManager.default.createDirectory(
            at: reference.appendingPathComponent(ResultsFolder.FileName.samples), withIntermediateDirectories: true)
        let conclusion = RunConclusion.conclude(result, gate: GateCheck(settings: GateSettings()))
        let report = try #require(conclusion.report)
        #expect(report.referenceGaps.isEmpty)
        #expect(report.notes.contains { $0.hasPrefix("The reference app's launches could not be read from ") })
        #expect(conclusion.verdict == .measured)
    }

    @Test func anUnreadableDeviceMakesAFullyMeasuredRunIncomplete() async throws {
        let conclusion = RunConclusion.conclude(try await Self.run(), gate: nil, unreadableDevices: 1)
        #expect(conclusion.verdict == .incomplete(unmeasured: 0, total: 10))
    }
}
