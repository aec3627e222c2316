import Foundation
import TestSupport
import Testing

@testable import LaunchBench

@Suite(.timeLimit(.minutes(5))) struct RunnerTests {
    private func run(
        _ driver: FakeDeviceDriver, _ plan: RunPlan, reporter: any RunReporter = SilentRunReporter()
    ) async throws -> RunResult {
        let folder = RunnerFixtures.temporaryFolder()
        return try await BenchmarkRunner(driver: driver, reporter: reporter).run(
            plan, into: folder)
    }

    @Test func everyLaunchBecomesASampleWithThePrintedValues() async throws {
        let devices = [
            RunnerFixtures.device(1, ios: "10.3.4", model: "iPhone5,1"), RunnerFixtures.device(2, ios: "12.5.7"),
        ]
        let driver = FakeDeviceDriver(devices: devices, script: RunnerFixtures.statisticsApp)
        let result = try await run(driver, RunnerFixtures.plan(iterations: 3, warm: 2))
        let samples = try result.samples

        #expect(samples.count == 2 * 3 * 3)
        #expect(samples.allSatisfy { $0.status == .ok })
        for device in devices {
            let samples = samples.filter { $0.deviceUDID == device.udid }
            #expect(samples.map(\.kind) == [.cold, .warm, .warm, .cold, .warm, .warm, .cold, .warm, .warm])
            #expect(samples.map(\.launchIndex) == [0, 1, 2, 0, 1, 2, 0, 1, 2])
            #expect(samples.map(\.iteration) == [1, 1, 1, 2, 2, 2, 3, 3, 3])
            for (offset, sample) in samples.enumerated() {
                let expected = RunnerFixtures.expectedTotal(number: offset + 1, cold: sample.kind == .cold)
                #expect(sample[.totalPremainMs] == expected)
                #expect(sample[.dylibLoadingMs] == expected / 2)
                #expect(sample[.wallMs] != nil)
                #expect(sample[.firstFrameMs] == nil)
            }
            #expect(driver.count(\.uninstalls, on: device.udid) == 3)
            #expect(driver.count(\.installs, on: device.udid) == 3)
        }
        // JSON keeps dates to the millisecond: compare everything else exactly, the dates to 1 ms.
        func withoutDate(_ sample: Sample) -> Sample {
            var copy = sample
            copy.startedAt = Date(timeIntervalSince1970: 0)
            return copy
        }
        let onDisk = try RunnerFixtures.readSamples(in: result.folder)
        #expect(onDisk.count == samples.count)
        #expect(Set(onDisk.map(withoutDate)) == Set(samples.map(withoutDate)))
        #expect(
            zip(onDisk.sorted { $0.logPath! < $1.logPath! }, samples.sorted { $0.logPath! < $1.logPath! })
                .allSatisfy { abs($0.startedAt.timeIntervalSince($1.startedAt)) < 0.002 })
        let manifest = try RunnerFixtures.readManifest(in: result.folder)
        #expect(manifest.deviceOutcomes?.map(\.outcome) == [.measured, .measured])
        #expect(manifest.endedAt != nil && manifest.interrupted == false)
        #expect(manifest.app?.bundleID == "com.example.sample" && manifest.devices == devices)
        let log = try String(
            contentsOf: result.folder.appendingPathComponent(try #require(samples[2].logPath)), encoding: .utf8)
        #expect(samples[2].logPath == "logs/\(devices[0].udid)/0001-warm2.log")
        #expect(log.hasPrefix("app says hi\nTotal pre-main time: 153.00 milliseconds"))
    }

    @Test func statisticsVariableIsAlwaysSetAndUserValuesArriveIntact() async throws {
        let device = RunnerFixtures.device(1, ios: "14.8", model: "iPhone12,1")
        let driver = FakeDeviceDriver(devices: [device], script: RunnerFixtures.statisticsApp)
        let env = [
            EnvironmentVariable(name: "DYLD_PRINT_STATISTICS", value: "0"),
            EnvironmentVariable(name: "DYLD_INSERT_LIBRARIES", value: "/usr/lib/x.dylib"),
            EnvironmentVariable(name: "GREETING", value: "a=b c d — ünïcødé ✓"),
        ]
        _ = try await run(driver, RunnerFixtures.plan(iterations: 1, warm: 1, env: env))
        let requests = driver.launchRequests(on: device.udid)
        #expect(requests.count == 2)
        for request in requests {
            #expect(request.bundleID == "com.example.sample")
            #expect(request.environment.last == EnvironmentVariable(name: "DYLD_PRINT_STATISTICS", value: "1"))
            #expect(request.environment.contains(EnvironmentVariable(name: "GREETING", value: "a=b c d — ünïcødé ✓")))
            #expect(
                request.environment.contains(
                    EnvironmentVariable(name: "DYLD_INSERT_LIBRARIES", value: "/usr/lib/x.dylib")))
        }
    }

    @Test func iOS17DeviceIsSkippedWithAdviceAndOthersGoOn() async throws {
        let modern = RunnerFixtures.device(1, ios: "17.5", model: "iPhone15,4")
        let old = RunnerFixtures.device(2, ios: "12.5.7")
        let driver = FakeDeviceDriver(devices: [modern, old], script: RunnerFixtures.statisticsApp)
        let reporter = RecordingReporter()
        let result = try await run(driver, RunnerFixtures.plan(iterations: 2, warm: 1), reporter: reporter)
        let samples = try result.samples

        #expect(driver.launchRequests(on: modern.udid).isEmpty)
        #expect(driver.count(\.installs, on: modern.udid) == 0)
        #expect(samples.count == 4)
        #expect(samples.allSatisfy { $0.deviceUDID == old.udid })
        let skipped = try #require(reporter.skipped.first)
        #expect(skipped.0.udid == modern.udid)
        #expect(skipped.1.contains(modern.udid) && skipped.1.contains("iOS 17.5") && skipped.1.contains("debugserver"))
        #expect(skipped.1.contains("iOS 16 or earlier"))
        #expect(result.manifest.deviceOutcomes?.map(\.outcome) == [.skipped, .measured])
    }

    @Test func versionNotesExplainWherePreMainComesFrom() async throws {
        let dyld3 = RunnerFixtures.device(1, ios: "14.8", model: "iPhone12,1")
        let dyld4 = RunnerFixtures.device(2, ios: "16.7", model: "iPhone14,5")
        let driver = FakeDeviceDriver(devices: [dyld3, dyld4]) { _ in
            .printing(FakeOutput.mark("main", 300) + FakeOutput.mark("firstFrame", 500))
        }
        let reporter = RecordingReporter()
        let result = try await run(driver, RunnerFixtures.plan(iterations: 1, warm: 0), reporter: reporter)
        let samples = try result.samples
        let notes = reporter.notes
        #expect(
            notes.contains {
                $0.0.udid == dyld3.udid && $0.1.contains("DYLD_INSERT_LIBRARIES") && $0.1.contains("markers")
            })
        #expect(notes.contains { $0.0.udid == dyld4.udid && $0.1.contains("does not print pre-main") })
        #expect(
            samples.allSatisfy { $0.status == .ok && $0[.firstFrameMs] == 500 && $0[.totalPremainMs] == nil })
    }

    @Test func installFailureIsRecordedAndSkipsOnlyThatIteration() async throws {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        let driver = FakeDeviceDriver(devices: [device], script: RunnerFixtures.statisticsApp)
        driver.failInstall(number: 2, on: device.udid)
        let result = try await run(driver, RunnerFixtures.plan(iterations: 3, warm: 1))
        let samples = try result.samples

        #expect(samples.map(\.status) == [.ok, .ok, .installFailed, .ok, .ok])
        let failed = samples[2]
        #expect(failed.iteration == 2 && failed.kind == .cold && failed.metrics.isEmpty)
        #expect(failed.message?.contains("ApplicationVerificationFailed") == true)
        #expect(result.manifest.deviceOutcomes?[0].outcome == .measured)
    }

    @Test func repeatedInstallFailuresStopTheDevice() async throws {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        let driver = FakeDeviceDriver(devices: [device], script: RunnerFixtures.statisticsApp)
        for number in 2...9 { driver.failInstall(number: number, on: device.udid) }
        let result = try await run(driver, RunnerFixtures.plan(iterations: 8, warm: 1))
        let samples = try result.samples
        #expect(samples.map(\.status) == [.ok, .ok, .installFailed, .installFailed, .installFailed])
        #expect(result.manifest.deviceOutcomes?[0].outcome == .stopped)
        #expect(result.manifest.deviceOutcomes?[0].notes.last?.contains("3 failed installs in a row") == true)
        #expect(result.manifest.deviceOutcomes?[0].stop?.rule == .failedInstalls)
    }

    @Test func lostDeviceStopsOnlyThatDevice() async throws {
        let leaving = RunnerFixtures.device(1, ios: "12.5.7")
        let staying = RunnerFixtures.device(2, ios: "10.3.4", model: "iPhone5,1")
        let driver = FakeDeviceDriver(devices: [leaving, staying]) { context in
            if context.udid == leaving.udid && context.number == 3 {
                return FakeDeviceDriver.AppScript(
                    [(.zero, "partial output\n")],
                    then: .fail(FakeDriverError(kind: .deviceLost, text: "the device disappeared (fake)")))
            }
            return RunnerFixtures.statisticsApp(context)
        }
        let result = try await run(driver, RunnerFixtures.plan(iterations: 3, warm: 1))
        let samples = try result.samples
        let left = samples.filter { $0.deviceUDID == leaving.udid }
        #expect(left.map(\.status) == [.ok, .ok, .deviceLost])
        #expect(left.last?.message?.contains("disappeared") == true)
        #expect(samples.filter { $0.deviceUDID == staying.udid }.count == 6)
        #expect(result.manifest.deviceOutcomes?.map(\.outcome) == [.lost, .measured])
        #expect(driver.launchRequests(on: leaving.udid).count == 3)
        #expect(result.manifest.deviceOutcomes?.map { $0.stop?.rule } == [.deviceLost, .iterations])
        #expect(result.manifest.deviceOutcomes?.map { $0.stop?.iterations } == [2, 3])
    }

    @Test func hangingAppTimesOutAndTheNextLaunchWorks() async throws {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        let driver = FakeDeviceDriver(devices: [device]) { context in
            context.number == 1 ? .printing("starting…\n") : RunnerFixtures.statisticsApp(context)
        }
        let result = try await run(driver, RunnerFixtures.plan(iterations: 1, warm: 1, timeout: .milliseconds(300)))
        let samples = try result.samples
        #expect(samples.map(\.status) == [.timeout, .ok])
        #expect(samples[0][.wallMs] == nil)
        #expect(samples[0].message?.contains("0.3 s") == true)
        #expect(driver.launchResults(on: device.udid).first == .endedByHarness(.timeout))
    }

    @Test func crashesAndEarlyExitsAreRecordedAndTheRunGoesOn() async throws {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        let stats = FakeOutput.statistics(total: 300, dylib: 100, rebase: 50, objc: 50, initializer: 100)
        let driver = FakeDeviceDriver(devices: [device]) { context in
            switch context.number {
            case 1: return .printing("", then: .crash(signal: 11))
            case 2: return .printing("Total pre-main time: 300.00 milliseconds (100.0%)\n", then: .exit(1))
            case 3: return .printing("", then: .killed(signal: 9))
            case 4: return .printing("", then: .exit(0))
            case 5: return .printing(stats, then: .exit(0))
            default: return RunnerFixtures.statisticsApp(context)
            }
        }
        let result = try await run(driver, RunnerFixtures.plan(iterations: 3, warm: 1))
        let samples = try result.samples
        #expect(samples.map(\.status) == [.crashed, .crashed, .crashed, .noMetrics, .ok, .ok])
        #expect(samples[0].signal == 11 && samples[0].message?.contains("SIGSEGV") == true)
        #expect(samples[1].exitStatus == 1)
        #expect(samples[2].signal == 9)
        #expect(samples[3].metrics.isEmpty)
        #expect(samples[4][.totalPremainMs] == 300 && samples[4].exitStatus == 0)
    }

    @Test func markersAfterStatisticsMakeTheRunnerWaitForFirstFrame() async throws {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        let stats = FakeOutput.statistics(total: 300, dylib: 100, rebase: 50, objc: 50, initializer: 100)
        let driver = FakeDeviceDriver(devices: [device]) { _ in
            FakeDeviceDriver.AppScript([
                (.zero, stats + FakeOutput.mark("main", 320)),
                (.milliseconds(250), FakeOutput.mark("didFinishLaunching", 600)),
                (.milliseconds(50), FakeOutput.mark("firstFrame", 700)),
            ])
        }
        let result = try await run(driver, RunnerFixtures.plan(iterations: 1, warm: 0, grace: .milliseconds(30)))
        let samples = try result.samples
        let sample = try #require(samples.first)
        #expect(sample.status == .ok)
        #expect(sample[.totalPremainMs] == 300 && sample[.mainMs] == 320 && sample[.firstFrameMs] == 700)
        #expect(try #require(sample[.wallMs]) >= 300)
    }

    @Test func doneWithoutValuesIsNoMetricsNeverZero() async throws {
        let device = RunnerFixtures.device(1, ios: "16.7", model: "iPhone14,5")
        let driver = FakeDeviceDriver(devices: [device]) { _ in .printing("hello\n" + FakeOutput.done) }
        let result = try await run(driver, RunnerFixtures.plan(iterations: 1, warm: 1))
        let samples = try result.samples
        #expect(samples.map(\.status) == [.noMetrics, .noMetrics])
        #expect(samples.allSatisfy { $0.metrics.isEmpty })
    }

    @Test func cancellationKeepsFinishedSamplesAndEndsTheLaunchInFlight() async throws {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        let driver = FakeDeviceDriver(devices: [device]) { context in
            context.number <= 2 ? RunnerFixtures.statisticsApp(context) : .printing("hanging\n")
        }
        let reporter = RecordingReporter()
        let folder = RunnerFixtures.temporaryFolder()
        let task = Task {
            try await BenchmarkRunner(driver: driver, reporter: reporter).run(
                RunnerFixtures.plan(iterations: 5, warm: 1, timeout: .seconds(600)), into: folder)
        }
        try await waitUntil("the third launch starts") { driver.launchRequests(on: device.udid).count >= 3 }
        task.cancel()
        let result = try await task.value
        let samples = try result.samples
        #expect(result.interrupted)
        #expect(samples.count == 2)
        #expect(try RunnerFixtures.readSamples(in: folder).count == 2)
        let manifest = try RunnerFixtures.readManifest(in: folder)
        #expect(manifest.interrupted == true && manifest.endedAt != nil)
        #expect(manifest.deviceOutcomes?[0].outcome == .interrupted)
        #expect(driver.launchResults(on: device.udid).last == .endedByHarness(.cancelled))
        #expect(
            FileManager.default.fileExists(
                atPath: folder.appendingPathComponent("logs/\(device.udid)/0002-cold.log").path))
    }

    @Test func rebootModeRestartsBeforeEachColdLaunchAndInstallsOnce() async throws {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        let driver = FakeDeviceDriver(devices: [device], script: RunnerFixtures.statisticsApp)
        let result = try await run(driver, RunnerFixtures.plan(iterations: 3, warm: 1, cold: .reboot))
        let samples = try result.samples
        #expect(driver.count(\.restarts, on: device.udid) == 3)
        #expect(driver.count(\.installs, on: device.udid) == 1)
        #expect(samples.count == 6)
        for (offset, sample) in samples.enumerated() {
            #expect(
                sample[.totalPremainMs] == RunnerFixtures.expectedTotal(number: offset + 1, cold: sample.kind == .cold))
        }
    }

    @Test func noColdModeInstallsOnceAndNeverRestarts() async throws {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        let driver = FakeDeviceDriver(devices: [device], script: RunnerFixtures.statisticsApp)
        let result = try await run(driver, RunnerFixtures.plan(iterations: 2, warm: 1, cold: .none))
        let samples = try result.samples
        #expect(driver.count(\.installs, on: device.udid) == 1)
        #expect(driver.count(\.restarts, on: device.udid) == 0)
        #expect(samples.map(\.kind) == [.cold, .warm, .cold, .warm])
    }

    @Test func repeatedRefusalsStopTheDevice() async throws {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        let driver = FakeDeviceDriver(devices: [device], script: RunnerFixtures.statisticsApp)
        driver.refuseLaunches(on: device.udid)
        let result = try await run(driver, RunnerFixtures.plan(iterations: 5, warm: 1))
        let samples = try result.samples
        #expect(samples.map(\.status) == [.launchRefused, .launchRefused, .launchRefused])
        #expect(samples[0].message?.contains("signed for development") == true)
        #expect(result.manifest.deviceOutcomes?[0].outcome == .stopped)
        #expect(
            result.manifest.deviceOutcomes?[0].stop
                == StopDecision(
                    rule: .refusedLaunches, iterations: 2, reason: result.manifest.deviceOutcomes?[0].notes.last))
    }

    @Test func unknownDeviceIsRefusedWithTheAttachedList() async throws {
        let attached = RunnerFixtures.device(1, ios: "12.5.7")
        let driver = FakeDeviceDriver(devices: [attached], script: RunnerFixtures.statisticsApp)
        let folder = RunnerFixtures.temporaryFolder()
        await #expect(throws: LaunchBenchError.deviceNotAttached(udid: "nope", attached: [attached.udid])) {
            try await BenchmarkRunner(driver: driver).run(
                RunnerFixtures.plan(devices: ["nope"]), into: folder)
        }
        let message = LaunchBenchError.deviceNotAttached(udid: "nope", attached: [attached.udid]).errorDescription ?? ""
        #expect(message.contains("nope") && message.contains(attached.udid))
        let empty = FakeDeviceDriver(devices: [], script: RunnerFixtures.statisticsApp)
        await #expect(throws: LaunchBenchError.noDevicesAttached) {
            try await BenchmarkRunner(driver: empty).selectDevices(for: RunnerFixtures.plan())
        }
    }

    @Test func namedDevicesAreMeasuredInTheGivenOrderOnce() async throws {
        let a = RunnerFixtures.device(1, ios: "12.5.7")
        let b = RunnerFixtures.device(2, ios: "12.5.7")
        let driver = FakeDeviceDriver(devices: [a, b], script: RunnerFixtures.statisticsApp)
        let selected = try await BenchmarkRunner(driver: driver).selectDevices(
            for: RunnerFixtures.plan(devices: [b.udid, a.udid.lowercased(), b.udid]))
        #expect(selected.devices == [b, a])
        #expect(selected.unreadable.isEmpty)
    }

    @Test func anUnreadableDeviceIsSkippedWithItsReasonAndTheOthersGoOn() async throws {
        let a = RunnerFixtures.device(1, ios: "12.5.7")
        let rebooting = RunnerFixtures.device(2, ios: "12.5.7")
        let driver = FakeDeviceDriver(devices: [a, rebooting], script: RunnerFixtures.statisticsApp)
        driver.makeUnreadable(rebooting.udid)
        let reporter = RecordingReporter()
        let runner = BenchmarkRunner(driver: driver, reporter: reporter)

        let selection = try await runner.selectDevices(for: RunnerFixtures.plan())
        #expect(selection.devices == [a])
        #expect(selection.unreadable.map(\.udid) == [rebooting.udid])
        #expect(selection.unreadable.first?.message.contains("lockdownd refused") == true)
        let reported = reporter.all.compactMap {
            if case .deviceUnreadable(let d) = $0 { return d.udid } else { return nil }
        }
        #expect(reported == [rebooting.udid])

        let result = try await run(driver, RunnerFixtures.plan(iterations: 2))
        let samples = try result.samples
        #expect(Set(samples.map(\.deviceUDID)) == [a.udid])
        #expect(result.manifest.devices == [a])
    }

    @Test func onlyTheNamedDevicesAreRead() async throws {
        let a = RunnerFixtures.device(1, ios: "12.5.7")
        let b = RunnerFixtures.device(2, ios: "12.5.7")
        let driver = FakeDeviceDriver(devices: [a, b], script: RunnerFixtures.statisticsApp)
        driver.makeUnreadable(b.udid)
        let selection = try await BenchmarkRunner(driver: driver).selectDevices(
            for: RunnerFixtures.plan(devices: [a.udid]))
        #expect(selection.devices == [a] && selection.unreadable.isEmpty)
        #expect(driver.valuesRead == [a.udid])
    }

    @Test func whenNoDeviceToMeasureCanBeReadTheErrorNamesThem() async throws {
        let a = RunnerFixtures.device(1, ios: "12.5.7")
        let driver = FakeDeviceDriver(devices: [a], script: RunnerFixtures.statisticsApp)
        driver.makeUnreadable(a.udid)
        let expected = LaunchBenchError.noReadableDevice([
            UnreadableDevice(udid: a.udid, reason: "lockdownd refused the connection (fake)")
        ])
        await #expect(throws: expected) {
            try await BenchmarkRunner(driver: driver).selectDevices(for: RunnerFixtures.plan(devices: [a.udid]))
        }
        #expect(expected.errorDescription?.contains(a.udid) == true)
        #expect(expected.errorDescription?.contains("launchbench devices") == true)
    }
}
