import Foundation
import TestSupport
import Testing

@testable import LaunchBench

/// Fault matrix: a launch that hangs or exits right after dyld's statistics was recorded `ok`.
@Suite struct EndOfLaunchTests {
    private let stats = FakeOutput.statistics(total: 300, dylib: 100, rebase: 50, objc: 50, initializer: 100)

    @Test func statisticsAloneDoNotCompleteALaunchWhenMarkersAreExpected() throws {
        let watcher = LaunchWatcher(log: nil, timeout: .seconds(2), grace: .milliseconds(100), expectsMarkers: true)
        let start = ContinuousClock.now
        watcher.launched(at: start)
        watcher.output(Array(stats.utf8))
        #expect(watcher.completedAt == nil)
        #expect(watcher.shouldEnd(at: start + .milliseconds(1999)) == nil)
        #expect(watcher.shouldEnd(at: start + .seconds(2)) == .timeout)
        let observation = watcher.finish()
        let verdict = try #require(
            LaunchVerdict(termination: .endedByHarness(.timeout), observation: observation, timeout: .seconds(2)))
        #expect(verdict.status == .timeout)
        #expect(verdict.message?.contains("markers earlier launches") == true)
    }

    @Test func aNonZeroExitAfterACompleteLaunchIsExitedEarlyNotOk() throws {
        let watcher = LaunchWatcher(log: nil, timeout: .seconds(10), grace: .seconds(5))
        watcher.launched(at: .now)
        watcher.output(Array(stats.utf8))
        #expect(watcher.completedAt != nil)
        let observation = watcher.finish()
        let failed = try #require(
            LaunchVerdict(termination: .exited(status: 3), observation: observation, timeout: .seconds(10)))
        #expect(failed.status == .exitedEarly && failed.exitStatus == 3 && failed.wallMs == nil)
        #expect(failed.message?.contains("status 3") == true)
        #expect(SampleStatus.exitedEarly.isFailure)
        let clean = try #require(
            LaunchVerdict(termination: .exited(status: 0), observation: observation, timeout: .seconds(10)))
        #expect(clean.status == .ok)
    }

    /// Over the runner: once a launch printed firstFrame, a later launch that hangs after its statistics times
    /// out, and one that exits after them (3 or 0) was cut short; none counts in the numbers.
    @Test func laterLaunchesWithoutTheMarkersAreNotOk() async throws {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        let stats = self.stats
        let driver = FakeDeviceDriver(devices: [device]) { context in
            switch context.number {
            case 1:
                return .printing(
                    stats + FakeOutput.mark("main", 320) + FakeOutput.mark("firstFrame", 700) + FakeOutput.done)
            case 2: return .printing(stats)  // hangs after pre-main
            case 3: return .printing(stats, then: .exit(3))
            default: return .printing(stats, then: .exit(0))
            }
        }
        let folder = RunnerFixtures.temporaryFolder()
        let result = try await BenchmarkRunner(driver: driver).run(
            RunnerFixtures.plan(iterations: 2, warm: 1, timeout: .milliseconds(600), grace: .milliseconds(20)),
            into: folder)
        let samples = try result.samples
        #expect(samples.map(\.status) == [.ok, .timeout, .crashed, .crashed])
        #expect(samples[2].exitStatus == 3 && samples[2][.totalPremainMs] == 300)
        #expect(samples[3].exitStatus == 0)
        let summary = RunSummary(samples: samples)
        let cold = try #require(summary.devices.first?.kinds.first { $0.kind == .cold })
        #expect(cold.failures == 1 && cold.metrics[.totalPremainMs]?.n == 1)
    }

    /// Without markers in earlier launches, statistics alone still end a launch (apps without LaunchProbe), but
    /// an exit with a non-zero status right after them is `exited-early`, counted as a failure.
    @Test func appsWithoutMarkersEndOnTheirStatisticsAndANonZeroExitIsExitedEarly() async throws {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        let stats = self.stats
        let driver = FakeDeviceDriver(devices: [device]) { context in
            context.number == 3 ? .printing(stats, then: .exit(3)) : RunnerFixtures.statisticsApp(context)
        }
        let folder = RunnerFixtures.temporaryFolder()
        let result = try await BenchmarkRunner(driver: driver).run(
            RunnerFixtures.plan(iterations: 2, warm: 1, timeout: .seconds(20)), into: folder)
        let samples = try result.samples
        #expect(samples.map(\.status) == [.ok, .ok, .exitedEarly, .ok])
        #expect(samples[2].exitStatus == 3 && samples[2][.totalPremainMs] == 300)
        #expect(result.counts.failed == 1)
        let summary = RunSummary(samples: samples)
        let cold = try #require(summary.devices.first?.kinds.first { $0.kind == .cold })
        #expect(cold.failuresByStatus == [.exitedEarly: 1] && cold.metrics[.totalPremainMs]?.n == 1)
    }
}

/// Fault matrix: on a full disk the error named run.json, not the write that failed, and run.json stayed
/// `interrupted: false`.
@Suite struct FullDiskTests {
    /// Points the process's open descriptor of `path` at /dev/full, so its next write fails with ENOSPC.
    static func fillDisk(under path: String) {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for entry in entries {
            guard let fd = Int32(entry),
                let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)"),
                link == target
            else { continue }
            let full = open("/dev/full", O_WRONLY)
            dup2(full, fd)
            close(full)
        }
    }

    @Test func theFailedWriteIsNamedAndRunJsonSaysInterrupted() async throws {
        #if os(Linux)
            let device = RunnerFixtures.device(1, ios: "12.5.7")
            let folder = RunnerFixtures.temporaryFolder()
            let samplesPath = folder.appendingPathComponent("samples.jsonl").path
            let driver = FakeDeviceDriver(devices: [device]) { context in
                if context.number == 2 { Self.fillDisk(under: samplesPath) }
                return RunnerFixtures.statisticsApp(context)
            }
            await #expect {
                _ = try await BenchmarkRunner(driver: driver).run(
                    RunnerFixtures.plan(iterations: 3, warm: 1), into: folder)
            } throws: { error in
                guard case LaunchBenchError.cannotWrite(let path, _)? = error as? LaunchBenchError else { return false }
                return path.hasSuffix("samples.jsonl")
            }
            let manifest = try RunnerFixtures.readManifest(in: folder)
            #expect(manifest.interrupted == true && manifest.endedAt != nil)
            #expect(try RunnerFixtures.readSamples(in: folder).count == 1)
            #expect(
                !FileManager.default.fileExists(
                    atPath: folder.appendingPathComponent(ResultsStore.reserveFileName).path))
        #endif
    }

    @Test func aLogThatCouldNotBeWrittenIsAWarningOnItsLaunch() async throws {
        #if os(Linux)
            let device = RunnerFixtures.device(1, ios: "12.5.7")
            let folder = RunnerFixtures.temporaryFolder()
            let logPath = folder.appendingPathComponent(
                ResultsStore.logPath(udid: device.udid, iteration: 1, kind: .warm, launchIndex: 1)
            ).path
            let driver = FakeDeviceDriver(devices: [device]) { context in
                if context.number == 2 { Self.fillDisk(under: logPath) }
                return RunnerFixtures.statisticsApp(context)
            }
            let result = try await BenchmarkRunner(driver: driver).run(
                RunnerFixtures.plan(iterations: 1, warm: 1), into: folder)
            let samples = try result.samples
            #expect(samples.map(\.status) == [.ok, .ok])
            #expect(samples[0].warnings.isEmpty)
            #expect(samples[1].warnings.contains { $0.contains("0001-warm.log is incomplete") })
        #endif
    }

    @Test func aFailedManifestWriteKeepsTheFirstErrorAndSaysRunJsonWasNotUpdated() {
        let first = LaunchBenchError.cannotWrite(path: "/r/samples.jsonl", reason: "No space left on device")
        let second = LaunchBenchError.cannotWrite(path: "/r/run.json", reason: "No space left on device")
        let combined = BenchmarkRunner.adding(second, to: first) as? LaunchBenchError
        guard case .cannotWrite(let path, let reason)? = combined else {
            Issue.record("not a cannotWrite: \(String(describing: combined))")
            return
        }
        #expect(path == "/r/samples.jsonl" && reason.contains("run.json"))
    }
}
