import Foundation
import LaunchBench
import TestSupport
import Testing

/// Where an iteration's time went: the runner records the reinstall's steps and each launch's duration.
@Suite struct PhaseTimingsTests {
    private func run(_ driver: any DeviceDriver, _ plan: RunPlan) async throws -> RunResult {
        let folder = RunnerFixtures.temporaryFolder()
        return try await BenchmarkRunner(driver: driver).run(plan, into: folder)
    }

    @Test func coldSamplesCarryTheReinstallAndEverySampleItsLaunch() async throws {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        let result = try await run(
            FakeDeviceDriver(devices: [device], script: RunnerFixtures.statisticsApp),
            RunnerFixtures.plan(iterations: 2, warm: 2))
        let samples = try result.samples
        #expect(samples.count == 6)
        for sample in samples {
            let phases = sample.phases
            #expect(phases.launchMs.map { $0 >= 0 } == true)
            if sample.kind == .cold {
                let reinstall = try #require(phases.reinstallMs)
                let uninstall = try #require(phases.uninstallMs)
                let install = try #require(phases.installMs)
                #expect(reinstall >= uninstall + install - 0.001)  // the default reinstall runs them in turn
                #expect(phases.uploadMs == nil)  // timed inside the install by the default
            } else {
                #expect(phases.reinstallMs == nil && phases.installMs == nil)
            }
        }
        let onDisk = try RunnerFixtures.readSamples(in: result.folder)
        #expect(onDisk.map(\.phases) == samples.map(\.phases))
    }

    @Test func theDriversStepTimesReachTheColdSample() async throws {
        let device = RunnerFixtures.device(1, ios: "14.8", model: "iPhone12,1")
        let driver = SteppedReinstallDriver(
            base: FakeDeviceDriver(devices: [device], script: RunnerFixtures.statisticsApp))
        let result = try await run(driver, RunnerFixtures.plan(iterations: 1, warm: 1))
        let samples = try result.samples
        let cold = try #require(samples.first { $0.kind == .cold })
        #expect(cold.phases.uninstallMs == 150)
        #expect(cold.phases.uploadMs == 12)
        #expect(cold.phases.installMs == 650)
        #expect(try #require(cold.phases.reinstallMs) >= 0)
    }

    @Test func withoutReinstallNoSampleHasReinstallTimes() async throws {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        let result = try await run(
            FakeDeviceDriver(devices: [device], script: RunnerFixtures.statisticsApp),
            RunnerFixtures.plan(iterations: 2, warm: 1, cold: .none))
        let samples = try result.samples
        #expect(samples.count == 4)
        #expect(samples.allSatisfy { $0.phases.reinstallMs == nil && $0.phases.launchMs != nil })
    }

    @Test func samplesJSONHasPhasesOnlyWhenTimed() throws {
        var sample = Sample(
            runID: "r", deviceUDID: "u", deviceName: "n", productType: "iPhone12,1", osVersion: "14.8",
            appBundleID: "b", appVersion: "1", iteration: 1, kind: .cold, status: .ok,
            startedAt: Date(timeIntervalSince1970: 0))
        let plain = String(decoding: try JSONCoding.encoder().encode(sample), as: UTF8.self)
        #expect(!plain.contains("phases"))
        sample.phases = PhaseTimings(reinstallMs: 812.5, uninstallMs: 160, uploadMs: 12, installMs: 655, launchMs: 270)
        let timed = String(decoding: try JSONCoding.encoder().encode(sample), as: UTF8.self)
        #expect(
            timed.contains(
                #""phases":{"install_ms":655,"launch_ms":270,"reinstall_ms":812.5,"uninstall_ms":160,"upload_ms":12}"#))
        #expect(try JSONCoding.decoder().decode(Sample.self, from: Data(timed.utf8)).phases == sample.phases)
    }

    @Test func summariesSayWhereTheTimeWent() {
        let cold = PhaseTimings(reinstallMs: 812.4, uninstallMs: 160, uploadMs: 12.2, installMs: 655, launchMs: 270)
        #expect(cold.summary == "reinstall 812 ms (uninstall 160 ms, upload 12 ms, install 655 ms), launch 270 ms")
        #expect(PhaseTimings(launchMs: 170.6).summary == "launch 171 ms")
        #expect(PhaseTimings().summary == nil)
        #expect(
            PhaseTimings.iterationSummary(cold: cold, warm: PhaseTimings(launchMs: 165))
                == "reinstall 0.81 s (upload 0.01 s), cold 0.27 s, warm 0.17 s")
        #expect(
            PhaseTimings.iterationSummary(cold: PhaseTimings(reinstallMs: 1500, launchMs: 300), warm: nil)
                == "reinstall 1.50 s, cold 0.30 s")
        #expect(PhaseTimings.iterationSummary(cold: nil, warm: nil) == nil)
    }
}

/// The fake driver with a reinstall that reports fixed step times, as a driver that times its own steps does.
private struct SteppedReinstallDriver: DeviceDriver {
    let base: FakeDeviceDriver

    func listDevices(reading udids: [String]?) async throws -> DeviceListing {
        try await base.listDevices(reading: udids)
    }
    func uninstall(bundleID: String, on udid: String) async throws {
        try await base.uninstall(bundleID: bundleID, on: udid)
    }
    func install(_ app: AppBundle, on udid: String, timeout: Duration) async throws {
        try await base.install(app, on: udid, timeout: timeout)
    }
    func reinstall(_ app: AppBundle, on udid: String, timeout: Duration) async throws -> ReinstallTimings {
        try await base.uninstall(bundleID: app.bundleID, on: udid)
        try await base.install(app, on: udid, timeout: timeout)
        return ReinstallTimings(uninstall: .milliseconds(150), upload: .milliseconds(12), install: .milliseconds(650))
    }
    func launch(_ request: LaunchRequest, on udid: String, observer: any LaunchObserver) async throws
        -> LaunchTermination
    {
        try await base.launch(request, on: udid, observer: observer)
    }
    func restart(_ udid: String, timeout: Duration) async throws { try await base.restart(udid, timeout: timeout) }
}
