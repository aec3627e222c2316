import Foundation
import TestSupport
import Testing

@testable import LaunchBench

/// `run NEW --against BASE` over the in-memory driver: both builds per iteration in ABBA order, each sample
/// naming its build, BASE's launches in DIR/base/, and the paired rule stopping a device once its pairs decide.
@Suite struct ABRunTests {
    private static let base = AppBundle(
        url: URL(fileURLWithPath: "/tmp/base/Sample.app"), packaging: .appFolder, bundleID: "com.example.sample",
        shortVersion: "1.0", build: "6", executable: "Sample", bundleName: "Sample.app", frameworks: [])

    /// A driver whose app prints pre-main statistics of 400 ms (build 6) or 400 ms × `newRatio` (build 7),
    /// with a small wobble from the launch number, so pairs are known.
    private static func driver(_ device: DeviceInfo, newRatio: Double) -> FakeDeviceDriver {
        let installed = Locked<FakeDeviceDriver?>(nil)
        let driver = FakeDeviceDriver(devices: [device]) { context in
            let build = installed.withLock { $0?.installedApps.last?.build }
            let wobble = Double(context.number % 3)
            let total = (build == "7" ? 400 * newRatio : 400) + wobble
            return .printing(
                FakeOutput.statistics(
                    total: total, dylib: total / 2, rebase: total / 8, objc: total / 8, initializer: total / 4))
        }
        installed.withLock { $0 = driver }
        return driver
    }

    private static func plan(iterations: Int = 4) -> RunPlan {
        var plan = RunnerFixtures.plan(iterations: iterations, warm: 1)
        plan.against = base
        plan.build = RunManifest.newBuild
        return plan
    }

    @Test func bothBuildsAreMeasuredEachIterationInABBAOrder() async throws {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        let driver = Self.driver(device, newRatio: 1)
        let folder = RunnerFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await BenchmarkRunner(driver: driver).run(Self.plan(), into: folder)
        // Iteration 1 NEW then BASE, 2 BASE then NEW, 3 NEW then BASE, 4 BASE then NEW: one install each.
        #expect(driver.installedApps.map(\.build) == ["7", "6", "6", "7", "7", "6", "6", "7"])
        let new = try RunnerFixtures.readSamples(in: folder)
        let base = try RunnerFixtures.readSamples(in: folder.appendingPathComponent("base"))
        #expect(new.count == 8 && new.allSatisfy { $0.build == "new" && $0.appVersion == "1.0 (7)" })
        #expect(base.count == 8 && base.allSatisfy { $0.build == "base" && $0.appVersion == "1.0 (6)" })
        #expect(base.map(\.iteration) == [1, 1, 2, 2, 3, 3, 4, 4])
        // Every launch counts in the run's tally, both builds'.
        #expect(result.counts.total == 16)
        let manifest = try RunnerFixtures.readManifest(in: folder)
        #expect(manifest.builds?.map(\.role) == ["new", "base"])
        #expect(manifest.builds?.map(\.version) == ["1.0 (7)", "1.0 (6)"])
        #expect(manifest.builds?.last?.path == "/tmp/base/Sample.app")
        // The design's first look is at 6 pairs, the fewest the exact signed-rank test can reject from at 0.05,
        // so 4 iterations cannot decide: the gate says so (too few pairs).
        #expect(manifest.pairedDesign?.maxPairs == 6)
        let baseManifest = try RunnerFixtures.readManifest(in: folder.appendingPathComponent("base"))
        #expect(baseManifest.app?.build == "6")
    }

    @Test func untilVerdictStopsOnceThePairsDecide() async throws {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        let driver = Self.driver(device, newRatio: 1.3)
        let folder = RunnerFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var plan = Self.plan()
        plan.pairedVerdict = PairedStopping(
            design: PairedSequentialVerdict(minimumPairs: 5, maxPairs: 30), settings: GateSettings())
        let result = try await BenchmarkRunner(driver: driver).run(plan, into: folder)
        let outcome = try #require(result.manifest.deviceOutcomes?.first)
        #expect(outcome.stop?.rule == .untilVerdict)
        let iterations = try #require(outcome.stop?.iterations)
        #expect(iterations < 30)
        #expect(
            outcome.stop?.reason?.hasPrefix("the pairs decided after \(iterations) iterations: cold regression") == true
        )
        // What stopped the device is what the gate says over the folder.
        let input = try GateInput.load(path: folder.path, role: .current)
        let report = try GateCheck(settings: GateSettings()).report(current: input)
        #expect(report.paired?.entries.map(\.verdict) == [.regression, .regression])
        #expect(report.outcome == .failed)
    }
}
