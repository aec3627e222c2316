import Foundation
import Testing

@testable import LaunchBench

/// A device's run as a pipeline: the launch step and the enrichers are plugged in, and the stopping rules say
/// why the device's launches ended as data.
@Suite(.timeLimit(.minutes(5))) struct LaunchPipelineTests {
    /// Launches through the driver, counting: what another way of launching would replace.
    final class CountingLauncher: AppLauncher {
        let driver: any DeviceDriver
        let launches = Locked(0)
        let method = LaunchMethod.debugserver

        init(driver: any DeviceDriver) { self.driver = driver }

        func launch(_ request: LaunchRequest, on udid: String, observer: any LaunchObserver) async throws
            -> LaunchTermination
        {
            launches.withLock { $0 += 1 }
            return try await driver.launch(request, on: udid, observer: observer)
        }
    }

    /// Adds a warning to every sample and notes when it is called.
    final class TaggingEnricher: SampleEnricher {
        let calls = Locked<[String]>([])

        func willLaunch(_ attempt: LaunchAttempt) async {
            calls.withLock { $0.append("will \(attempt.iteration)-\(attempt.index)") }
        }

        func enrich(_ sample: inout Sample, of attempt: LaunchAttempt) async -> Bool {
            calls.withLock { $0.append("enrich \(attempt.iteration)-\(attempt.index) \(sample.status.rawValue)") }
            sample.warnings.append("tagged")
            return false
        }

        func finish() async -> [String] {
            calls.withLock { $0.append("finish") }
            return ["tagged every launch"]
        }
    }

    private func run(
        _ driver: FakeDeviceDriver, _ plan: RunPlan, launcher: (any AppLauncher)? = nil,
        enrichers: [any SampleEnricher] = []
    ) async throws -> (DeviceRun.Result, [Sample]) {
        let folder = RunnerFixtures.temporaryFolder()
        let store = try ResultsStore(folder: folder)
        var run = DeviceRun(
            driver: driver, device: RunnerFixtures.device(1, ios: "12.5.7"), plan: plan, runID: "r", store: store,
            reporter: SilentRunReporter(), launcher: launcher, enrichers: enrichers)
        let result = try await run.run()
        await store.close()
        return (result, try RunnerFixtures.readSamples(in: folder))
    }

    @Test func theLaunchStepAndTheEnrichersArePluggedIn() async throws {
        let driver = FakeDeviceDriver(
            devices: [RunnerFixtures.device(1, ios: "12.5.7")], script: RunnerFixtures.statisticsApp)
        let launcher = CountingLauncher(driver: driver)
        let enricher = TaggingEnricher()
        let (result, samples) = try await run(
            driver, RunnerFixtures.plan(iterations: 2, warm: 1), launcher: launcher, enrichers: [enricher])
        #expect(launcher.launches.current == 4)
        // The enricher sees each launch before it starts and after it ended (before its verdict: still `ok`).
        #expect(
            enricher.calls.current == [
                "will 1-0", "enrich 1-0 ok", "will 1-1", "enrich 1-1 ok", "will 2-0", "enrich 2-0 ok", "will 2-1",
                "enrich 2-1 ok", "finish",
            ])
        #expect(samples.count == 4 && samples.allSatisfy { $0.warnings.contains("tagged") && $0.status == .ok })
        #expect(result.stop == StopDecision(rule: .iterations, iterations: 2))
        #expect(result.notes == ["tagged every launch"])
    }

    /// Launches "through process control" (the driver's, under that name): what a phone's output events carry.
    final class OutputEventsLauncher: AppLauncher {
        let driver: any DeviceDriver
        let method = LaunchMethod.processControl

        init(driver: any DeviceDriver) { self.driver = driver }

        func launch(_ request: LaunchRequest, on udid: String, observer: any LaunchObserver) async throws
            -> LaunchTermination
        {
            try await driver.launch(request, on: udid, observer: observer)
        }
    }

    /// iOS 14 with an override: dyld's printed statistics are the source and process control launches. A phone
    /// whose output events do not carry dyld's stderr leaves the launches `ok` on their markers alone; the
    /// device's notes say so and name the way back to debugserver. Where the statistics arrive, nothing is said.
    @Test(arguments: [false, true])
    func statisticsMissingFromProcessControlsOutputAreNamed(printsStatistics: Bool) async throws {
        let device = RunnerFixtures.device(1, ios: "14.8", model: "iPhone12,1")
        let driver = FakeDeviceDriver(devices: [device]) { _ in
            .printing(
                (printsStatistics
                    ? FakeOutput.statistics(total: 400, dylib: 200, rebase: 50, objc: 50, initializer: 100) : "")
                    + FakeOutput.mark("main", 420) + FakeOutput.mark("firstFrame", 600) + "[launchbench] done\n",
                then: .exit(0))
        }
        let plan = RunnerFixtures.plan(
            iterations: 2, warm: 1,
            env: [EnvironmentVariable(name: "DYLD_INSERT_LIBRARIES", value: "/usr/lib/libMainThreadChecker.dylib")])
        #expect(plan.premainSource(for: device) == .dyldStatistics)
        let folder = RunnerFixtures.temporaryFolder()
        let store = try ResultsStore(folder: folder)
        var run = DeviceRun(
            driver: driver, device: device, plan: plan, runID: "r", store: store, reporter: SilentRunReporter(),
            launcher: OutputEventsLauncher(driver: driver))
        let result = try await run.run()
        await store.close()
        let samples = try RunnerFixtures.readSamples(in: folder)
        #expect(samples.count == 4 && samples.allSatisfy { $0.status == .ok && $0.launcher == .processControl })
        let note = result.notes.first { $0.contains("without dyld's printed statistics") }
        if printsStatistics {
            #expect(note == nil, "\(result.notes)")
        } else {
            #expect(
                note
                    == "Test iPhone 1: 4 of 4 launches through process control came back without dyld's printed "
                    + "statistics (its output events did not carry dyld's stderr): run again with --launcher "
                    + "debugserver to read them through debugserver.")
        }
    }

    @Test func repeatedRefusalsAreRecordedAsTheRuleThatStoppedTheDevice() async throws {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        let driver = FakeDeviceDriver(devices: [device], script: RunnerFixtures.statisticsApp)
        driver.refuseLaunches(on: device.udid)
        let (result, _) = try await run(driver, RunnerFixtures.plan(iterations: 5, warm: 1))
        #expect(result.outcome == .stopped)
        #expect(result.stop?.rule == .refusedLaunches)
        #expect(result.stop?.iterations == 2)  // refused: 1 cold, 1 warm, 2 cold
        #expect(result.stop?.reason == result.note)
    }

    @Test func repeatedInstallFailuresAreRecordedAsTheRuleThatStoppedTheDevice() async throws {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        let driver = FakeDeviceDriver(devices: [device], script: RunnerFixtures.statisticsApp)
        for number in 2...9 { driver.failInstall(number: number, on: device.udid) }
        let (result, samples) = try await run(driver, RunnerFixtures.plan(iterations: 8, warm: 1))
        #expect(samples.map(\.status) == [.ok, .ok, .installFailed, .installFailed, .installFailed])
        #expect(result.stop?.rule == .failedInstalls)
        #expect(result.stop?.iterations == 4)
        #expect(result.note?.hasPrefix("Stopped after 3 failed installs in a row") == true)
    }

    @Test func theAdaptiveRuleRecordsItsDecision() async throws {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        // The same cold value every launch: the interval is the median itself after the minimum iterations.
        let driver = FakeDeviceDriver(devices: [device]) { _ in
            .printing(FakeOutput.statistics(total: 400, dylib: 200, rebase: 50, objc: 50, initializer: 100))
        }
        var plan = RunnerFixtures.plan(iterations: 10, warm: 0)
        plan.stopping = AdaptiveStopping(targetPrecisionPercent: 3, maxIterations: 10)
        let (result, samples) = try await run(driver, plan)
        let stop = try #require(result.stop)
        #expect(stop.rule == .targetPrecision && stop.reachedTarget == true && stop.targetPercent == 3)
        #expect(stop.iterations == samples.count && samples.count < 10)
        #expect(stop.halfWidthPercent == 0)
        #expect(stop.precisionDecision.map { AdaptiveStopping.describe($0, target: 3) } == result.note)
    }
}
