import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import MobileDevice
import TestSupport
import Testing

/// The runner through the real libimobiledevice against emulated iPhones.
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(5))) struct RunEndToEndTests {
    @Test func threeIterationsOnTwoDevicesGiveTwelveSamplesWithThePrintedValues() async throws {
        try await EndToEnd.withDevices([("iPhone6,1", "12.5.7"), ("iPhone5,2", "10.3.4")]) { devices in
            let app = try EndToEnd.makeApp("Twelve", profile: EndToEnd.profile())
            let result = try await EndToEnd.run(EndToEnd.plan(app, devices: devices, iterations: 3))
            let samples = try result.samples

            #expect(samples.count == 12)
            #expect(samples.allSatisfy { $0.status == .ok })
            #expect(try EndToEnd.samplesOnDisk(result.folder).count == 12)
            for device in devices {
                let samples = samples.filter { $0.deviceUDID == device.udid }
                #expect(samples.map(\.kind) == [.cold, .warm, .cold, .warm, .cold, .warm])
                for sample in samples {
                    // Every value is exactly what the emulated dyld and app printed (the raw log, parsed alone).
                    let printed = try EndToEnd.parsedLog(of: sample, in: result.folder)
                    #expect(printed.count == 1)
                    var measured = sample.metrics
                    measured[.wallMs] = nil
                    #expect(measured == printed.first?.metrics)
                    #expect(sample[.totalPremainMs] != nil && sample[.firstFrameMs] != nil && sample[.wallMs] != nil)
                    #expect(
                        sample.bundleImages.isEmpty || sample.bundleImages.allSatisfy { $0.hasPrefix("Frameworks/") })
                }
                // Cold launches (after a reinstall) are the slow ones: the emulator printed cold figures.
                let cold = samples.filter { $0.kind == .cold }.compactMap { $0[.totalPremainMs] }
                let warm = samples.filter { $0.kind == .warm }.compactMap { $0[.totalPremainMs] }
                #expect(cold.min()! > warm.max()!, "cold \(cold) warm \(warm) \(samples.map(\.logPath))")
            }
            let manifest = try RunManifest.read(from: result.folder.appendingPathComponent("run.json"))
            #expect(manifest.deviceOutcomes?.map(\.outcome) == [.measured, .measured])
            #expect(manifest.app?.bundleID == app.bundleID)
        }
    }

    @Test func anIPAIsInstalledAndMeasured() async throws {
        try await EndToEnd.withDevices([("iPhone6,1", "12.5.7")]) { devices in
            let folderApp = try EndToEnd.makeApp("Packed", profile: EndToEnd.profile())
            let ipa = folderApp.url.deletingLastPathComponent().appendingPathComponent("Packed.ipa")
            let script = PackageRoot.at("Scripts/make-ipa")
            let zip = Process()
            zip.executableURL = script
            zip.arguments = [folderApp.url.path, ipa.path]
            zip.standardOutput = FileHandle.nullDevice
            try zip.run()
            zip.waitUntilExit()
            try #require(zip.terminationStatus == 0)
            let app = try AppBundle(contentsOf: ipa)
            #expect(app.packaging == .ipa && app.bundleID == folderApp.bundleID)

            let result = try await EndToEnd.run(EndToEnd.plan(app, devices: devices, iterations: 2))
            let samples = try result.samples
            #expect(samples.map(\.status) == [.ok, .ok, .ok, .ok])
        }
    }

    @Test func rebootColdModeRestartsTheDeviceBeforeEachColdLaunch() async throws {
        try await EndToEnd.withDevices([("iPhone6,1", "12.5.7")]) { devices in
            devices[0].services.bootSeconds = 2
            let app = try EndToEnd.makeApp("Rebooted", profile: EndToEnd.profile())
            let result = try await EndToEnd.run(EndToEnd.plan(app, devices: devices, iterations: 2, cold: .reboot))
            let samples = try result.samples
            #expect(samples.map(\.status) == [.ok, .ok, .ok, .ok])
            #expect(samples.map(\.kind) == [.cold, .warm, .cold, .warm])
            // The cold launch after each restart printed the cold figures.
            let cold = samples.filter { $0.kind == .cold }.compactMap { $0[.totalPremainMs] }
            let warm = samples.filter { $0.kind == .warm }.compactMap { $0[.totalPremainMs] }
            #expect(cold.count == 2 && cold.min()! > warm.max()!)
        }
    }

    @Test func aHangingAppIsKilledAtTheTimeoutAndTheNextLaunchWorks() async throws {
        try await EndToEnd.withDevices([("iPhone6,1", "12.5.7")]) { devices in
            let hang = Faults(hang: PointFault(when: LaunchSelector(launches: [1]), after: "main"))
            let app = try EndToEnd.makeApp("Hanging", profile: EndToEnd.profile(faults: hang))
            let result = try await EndToEnd.run(
                EndToEnd.plan(app, devices: devices, iterations: 1, warm: 1, timeout: .seconds(3)))
            let samples = try result.samples
            #expect(samples.map(\.status) == [.timeout, .ok])
            #expect(samples[0].message?.contains("main") == true)
            #expect(samples[1][.firstFrameMs] != nil)
        }
    }

    @Test func aCrashIsRecordedAsCrashedAndTheRunGoesOn() async throws {
        try await EndToEnd.withDevices([("iPhone6,1", "12.5.7")]) { devices in
            let crash = Faults(crash: CrashFault(when: LaunchSelector(launches: [2]), after: "main", signal: 11))
            let app = try EndToEnd.makeApp("Crashing", profile: EndToEnd.profile(faults: crash))
            let result = try await EndToEnd.run(EndToEnd.plan(app, devices: devices, iterations: 2))
            let samples = try result.samples
            #expect(samples.map(\.status) == [.ok, .crashed, .ok, .ok])
            #expect(samples[1].signal == 11)
            #expect(samples[1].message?.contains("SIGSEGV") == true)
        }
    }

    @Test func anAppThatCannotBeInstalledIsRecordedWithInstalldsMessage() async throws {
        try await EndToEnd.withDevices([("iPhone6,1", "12.5.7")]) { devices in
            let failure = InstallBehaviour(
                failure: InstallFailure(
                    error: "ApplicationVerificationFailed", description: "The signature is invalid (e2e)"))
            let app = try EndToEnd.makeApp("Unsigned", profile: EndToEnd.profile(install: failure))
            let result = try await EndToEnd.run(EndToEnd.plan(app, devices: devices, iterations: 5))
            let samples = try result.samples
            #expect(samples.map(\.status) == [.installFailed, .installFailed, .installFailed])
            #expect(samples.allSatisfy { $0.kind == .cold && $0.metrics.isEmpty })
            #expect(samples[0].message?.contains("ApplicationVerificationFailed") == true)
            #expect(result.manifest.deviceOutcomes?.first?.outcome == .stopped)
        }
    }

    @Test func anAppNotSignedForDevelopmentIsRefusedWithAClearMessage() async throws {
        try await EndToEnd.withDevices([("iPhone6,1", "12.5.7")]) { devices in
            let app = try EndToEnd.makeApp("Distribution", profile: EndToEnd.profile(developmentSigned: false))
            let result = try await EndToEnd.run(EndToEnd.plan(app, devices: devices, iterations: 3))
            let samples = try result.samples
            #expect(samples.map(\.status) == [.launchRefused, .launchRefused, .launchRefused])
            #expect(samples[0].message?.isEmpty == false)
            #expect(result.manifest.deviceOutcomes?.first?.outcome == .stopped)
        }
    }

    @Test func iOS17IsSkippedWhileOthersAreMeasured() async throws {
        try await EndToEnd.withDevices([("iPhone15,4", "17.5"), ("iPhone12,1", "16.7")]) { devices in
            let app = try EndToEnd.makeApp("Modern", profile: EndToEnd.profile())
            let result = try await EndToEnd.run(EndToEnd.plan(app, devices: devices, iterations: 1))
            let samples = try result.samples
            #expect(samples.map(\.deviceUDID) == [devices[1].udid, devices[1].udid])
            #expect(
                samples.allSatisfy { $0.status == .ok && $0[.totalPremainMs] == nil && $0[.firstFrameMs] != nil }
            )
            let skipped = try #require(result.manifest.outcome(of: devices[0].udid))
            #expect(skipped.outcome == .skipped && skipped.notes.first?.contains("iOS 17.5") == true)
        }
    }

    @Test func environmentValuesArriveIntact() async throws {
        try await EndToEnd.withDevices([("iPhone12,1", "14.8")]) { devices in
            let app = try EndToEnd.makeApp("Environment", profile: EndToEnd.profile())
            let environment = [
                EnvironmentVariable(
                    name: "DYLD_INSERT_LIBRARIES", value: "/Developer/usr/lib/libMainThreadChecker.dylib"),
                EnvironmentVariable(name: "EQUATION", value: "a=b=c"),
                EnvironmentVariable(name: "SENTENCE", value: "  spaces in  the middle and at the end  "),
                EnvironmentVariable(name: "UNICODE", value: "Grüße, 東京, emoji 🚀, ümlaut"),
                EnvironmentVariable(name: "EMPTY", value: ""),
            ]
            let result = try await EndToEnd.run(
                EndToEnd.plan(app, devices: devices, iterations: 1, environment: environment))
            let samples = try result.samples
            #expect(samples.map(\.status) == [.ok, .ok])
            // The override variable reached dyld3: it printed statistics on iOS 14.
            #expect(samples.allSatisfy { $0[.totalPremainMs] != nil })
            let received = devices[0].services.launchHistory.filter { $0.bundleID == app.bundleID }
            #expect(received.count == 2)
            for launch in received {
                for variable in environment { #expect(launch.environment.contains(variable)) }
                #expect(launch.environment.last == EnvironmentVariable(name: "DYLD_PRINT_STATISTICS", value: "1"))
                #expect(launch.environment.contains(EnvironmentVariable(name: "LAUNCHBENCH_HARNESS", value: "1")))
            }
            #expect(received.map(\.kind) == [.cold, .warm])
        }
    }

    @Test func aDeviceThatDisappearsIsMarkedLostAndTheOthersGoOn() async throws {
        try await EndToEnd.withDevices([("iPhone6,1", "12.5.7"), ("iPhone12,1", "16.7")]) { devices in
            let app = try EndToEnd.makeApp("Unplugged", profile: EndToEnd.profile())
            let lab = try await SharedTestLab.lab()
            let leaving = devices[0].udid
            let unplug = Unplugger { sample in
                if sample.deviceUDID == leaving && sample.iteration == 1 && sample.kind == .warm {
                    try? lab.detach(udid: leaving)
                }
            }
            let result = try await EndToEnd.run(EndToEnd.plan(app, devices: devices, iterations: 3), reporter: unplug)
            let samples = try result.samples
            let left = samples.filter { $0.deviceUDID == leaving }
            #expect(left.map(\.status) == [.ok, .ok, .deviceLost])
            #expect(result.manifest.outcome(of: leaving)?.outcome == .lost)
            let stayed = samples.filter { $0.deviceUDID == devices[1].udid }
            #expect(stayed.count == 6 && stayed.allSatisfy { $0.status == .ok })
        }
    }

    @Test func anInterruptedRunKeepsEveryFinishedSample() async throws {
        try await EndToEnd.withDevices([("iPhone6,1", "12.5.7")]) { devices in
            let app = try EndToEnd.makeApp("Interrupted", profile: EndToEnd.profile())
            let plan = EndToEnd.plan(app, devices: devices, iterations: 50)
            let counter = FinishedLaunches()
            let run = Task { try await EndToEnd.run(plan, reporter: counter) }
            try await waitUntil("three launches finish") { counter.count >= 3 }
            run.cancel()
            let result = try await run.value
            let samples = try result.samples
            #expect(result.interrupted)
            #expect(samples.count >= 3 && samples.count < 100)
            #expect(samples.allSatisfy { $0.status == .ok })
            let onDisk = try EndToEnd.samplesOnDisk(result.folder)
            #expect(onDisk.count == samples.count)
            let manifest = try RunManifest.read(from: result.folder.appendingPathComponent("run.json"))
            #expect(manifest.interrupted == true && manifest.endedAt != nil)
            // The device is usable at once: nothing was left running.
            let again = try await EndToEnd.run(
                EndToEnd.plan(app, devices: devices, iterations: 1, warm: 0, cold: .none))
            #expect(try again.samples.map(\.status) == [.ok])
        }
    }
}

/// Calls `action` with each finished launch (from the device tasks).
final class Unplugger: RunReporter, Sendable {
    let action: @Sendable (Sample) -> Void
    init(_ action: @escaping @Sendable (Sample) -> Void) { self.action = action }
    func report(_ event: RunEvent) {
        if case .launchFinished(let sample) = event { action(sample) }
    }
}

/// Counts finished launches (the run reports them from the device tasks).
final class FinishedLaunches: RunReporter, Sendable {
    private let value = Locked(0)

    func report(_ event: RunEvent) {
        guard case .launchFinished = event else { return }
        value.withLock { $0 += 1 }
    }

    var count: Int { value.current }
}
