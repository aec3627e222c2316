import Foundation
import TestSupport
import Testing

@testable import LaunchBench

/// `run NEW --against BASE` on a device without a kdebug session: both builds' launches are labelled from the
/// device's one log, so a prewarm of the base build sets BASE's next cold launch aside as it would NEW's.
@Suite struct ABRunPrelaunchTests {
    /// The in-memory driver with a device log: after chosen installs runningboardd's launch request for the app
    /// is written to the log, and the install returns once the log's reader has taken the line.
    final class LoggingDriver: DeviceDriver {
        let inner: FakeDeviceDriver
        /// Whether the phone prewarms the app after installing it (the build installed, the install's number).
        private let prewarms: @Sendable (AppBundle, Int) -> Bool
        private let lines = Locked<[String]>([])
        private let written = Locked(0)
        private let asked = Locked(0)
        private let opened = Locked(0)
        private let installs = Locked(0)

        init(_ inner: FakeDeviceDriver, prewarms: @escaping @Sendable (AppBundle, Int) -> Bool) {
            self.inner = inner
            self.prewarms = prewarms
        }

        /// How many times the device log was opened.
        var logsOpened: Int { opened.current }

        func listDevices(reading udids: [String]?) async throws -> DeviceListing {
            try await inner.listDevices(reading: udids)
        }
        func uninstall(bundleID: String, on udid: String) async throws {
            try await inner.uninstall(bundleID: bundleID, on: udid)
        }
        func install(_ app: AppBundle, on udid: String, timeout: Duration) async throws {
            try await inner.install(app, on: udid, timeout: timeout)
            await installed(app)
        }
        func reinstall(_ app: AppBundle, on udid: String, timeout: Duration) async throws -> ReinstallTimings {
            let timings = try await inner.reinstall(app, on: udid, timeout: timeout)
            await installed(app)
            return timings
        }
        func launch(_ request: LaunchRequest, on udid: String, observer: any LaunchObserver) async throws
            -> LaunchTermination
        {
            try await inner.launch(request, on: udid, observer: observer)
        }
        func restart(_ udid: String, timeout: Duration) async throws {
            try await inner.restart(udid, timeout: timeout)
        }

        func deviceLog(on udid: String) async throws -> AsyncThrowingStream<String, any Error> {
            opened.withLock { $0 += 1 }
            return AsyncThrowingStream(unfolding: { [lines, asked] in
                asked.withLock { $0 += 1 }
                while !Task.isCancelled {
                    if let line = lines.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return line }
                    try? await Task.sleep(for: .milliseconds(5))
                }
                return nil
            })
        }

        /// Writes the prewarm line when due, then waits (at most 10 s) until the reader asks for the line after
        /// it: by then it has taken it.
        private func installed(_ app: AppBundle) async {
            let number = installs.withLock {
                $0 += 1
                return $0
            }
            guard prewarms(app, number) else { return }
            let count = written.withLock {
                $0 += 1
                return $0
            }
            lines.withLock {
                $0.append(
                    "Nov 26 09:12:03 iPhone runningboardd[33] <Notice>: Executing launch request for "
                        + "application<\(app.bundleID)> (DAS Prewarm launch)")
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while asked.current <= count && ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    private static let base = AppBundle(
        url: URL(fileURLWithPath: "/tmp/base/Sample.app"), packaging: .appFolder, bundleID: "com.example.sample",
        shortVersion: "1.0", build: "6", executable: "Sample", bundleName: "Sample.app", frameworks: [])

    @Test func aPrewarmOfTheBaseBuildLabelsBasesNextColdLaunch() async throws {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        let fake = FakeDeviceDriver(devices: [device]) { _ in
            .printing(FakeOutput.statistics(total: 400, dylib: 200, rebase: 50, objc: 50, initializer: 100))
        }
        // Iteration 1 installs NEW (1) then BASE (2); iteration 2 BASE (3) then NEW (4): BASE's first install only.
        let driver = LoggingDriver(fake) { app, number in app.build == "6" && number == 2 }
        let folder = RunnerFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var plan = RunnerFixtures.plan(iterations: 2, warm: 1)
        plan.against = Self.base
        plan.build = RunManifest.newBuild
        _ = try await BenchmarkRunner(driver: driver).run(plan, into: folder)

        let new = try RunnerFixtures.readSamples(in: folder)
        let base = try RunnerFixtures.readSamples(in: folder.appendingPathComponent("base"))
        #expect(new.count == 4 && base.count == 4)
        let labelled = base.filter { $0.prelaunch != nil }
        #expect(labelled.map { "\($0.iteration) \($0.kind)" } == ["1 cold"])
        #expect(labelled.first?.prelaunch?.source == .deviceLog)
        #expect(labelled.first?.prelaunch?.kind == .prewarm)
        #expect(labelled.first?.setAside == true)
        // The prewarm was BASE's: NEW's launches carry nothing of it.
        #expect(new.allSatisfy { $0.prelaunch == nil && !$0.setAside })
        // One log for the device, read for both builds.
        #expect(driver.logsOpened == 1)
    }
}
