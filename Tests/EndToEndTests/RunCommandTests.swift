import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

/// The built `launchbench run` as a subprocess against a private emulated lab (the address goes to the child only).
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(5))) struct RunCommandTests {
    private func start(_ arguments: [String], lab: EmulatedLab) throws -> ChildProcess {
        try LaunchbenchCLI.start(
            arguments,
            // No swift-demangle to be found: a run that never reads kdebug must not say so.
            environment: [
                "USBMUXD_SOCKET_ADDRESS": lab.usbmuxdSocketAddress, "NO_COLOR": "1",
                "LAUNCHBENCH_SWIFT_DEMANGLE": "/nonexistent/swift-demangle",
            ])
    }

    @Test func runWritesTheResultsFolderAndExitsZero() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 2, osVersion: "12.5.7")) { lab in
            let app = try EndToEnd.makeApp("Cli", profile: EndToEnd.profile())
            let output = EndToEnd.temporaryFolder("cli").appendingPathComponent("results")
            let child = try start(
                [
                    "run", app.url.path, "--iterations", "2", "--env", "GREETING=hello world", "--output", output.path,
                    "--timeout", "20", "--grace", "3",
                ], lab: lab)
            let status = try await child.waitForExit(timeout: .seconds(120))
            #expect(status == 0, "stderr: \(child.standardError)")
            #expect(child.standardOutput.contains("Results: \(output.path)"))
            #expect(child.standardOutput.contains("pre-main"))
            let samples = try EndToEnd.samplesOnDisk(output)
            #expect(samples.count == 8 && samples.allSatisfy { $0.status == .ok })
            for file in ["run.json", "samples.csv", "summary.csv", "summary.json", "report.html"] {
                #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(file).path), "\(file)")
            }
            // Not a terminal: one plain progress line per launch on stderr.
            #expect(
                child.standardError.components(separatedBy: "\n").filter { $0.contains(" ok: pre-main ") }.count == 8)
            // dyld's statistics name no initializer function: nothing was left mangled, so nothing is said.
            #expect(!child.standardError.contains("swift-demangle"), "\(child.standardError)")
        }
    }

    @Test func ctrlCStopsTheRunKeepsTheSamplesAndExits130() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let app = try EndToEnd.makeApp("Sigint", profile: EndToEnd.profile())
            let output = EndToEnd.temporaryFolder("sigint").appendingPathComponent("results")
            let child = try start(["run", app.url.path, "--iterations", "500", "--output", output.path], lab: lab)
            try await child.waitForOutput("three launches ok", timeout: .seconds(120)) {
                $0.standardError.components(separatedBy: " ok: ").count > 3
            }
            child.send(signal: SIGINT)
            let status = try await child.waitForExit(timeout: .seconds(60))
            #expect(status == 130, "stderr: \(child.standardError)")
            let samples = try EndToEnd.samplesOnDisk(output)
            #expect(samples.count >= 3 && samples.count < 1000)
            let manifest = try RunManifest.read(from: output.appendingPathComponent("run.json"))
            #expect(manifest.interrupted == true)
            #expect(child.standardOutput.contains("Results: \(output.path)"))
        }
    }

    /// The release smoke of a 3-device run: each device's model gives its launches a dylib-loading time of
    /// its own, so a launch recorded under the wrong device shows (as a release miscompile once did).
    @Test func aThreeDeviceRunAttributesEveryLaunchToItsDevice() async throws {
        let models = ["iPhone8,1": 300.0, "iPhone10,3": 200.0, "iPhone12,1": 100.0]
        let specs = models.keys.sorted().enumerated().map { index, model in
            EmulatedDeviceSpec.numbered(index + 1, productType: model, osVersion: "12.5.7")
        }
        try await PrivateLab.with(devices: specs) { lab in
            var profile = EndToEnd.profile()
            let base = try #require(profile.models?["default"])
            for (model, dylibMs) in models {
                var timings = base
                timings.cold?.dylibLoadingMs = dylibMs
                timings.warm?.dylibLoadingMs = dylibMs / 2
                profile.models?[model] = timings
            }
            let app = try EndToEnd.makeApp("Three", profile: profile)
            let output = EndToEnd.temporaryFolder("three").appendingPathComponent("results")
            let child = try start(["run", app.url.path, "--iterations", "3", "--output", output.path], lab: lab)
            let status = try await child.waitForExit(timeout: .seconds(120))
            #expect(status == 0, "stderr: \(child.standardError)")

            let manifest = try RunManifest.read(from: output.appendingPathComponent("run.json"))
            #expect(Set(manifest.devices.map(\.udid)) == Set(specs.map(\.udid)))
            #expect(manifest.deviceOutcomes?.map(\.outcome) == [.measured, .measured, .measured])
            #expect(manifest.deviceOutcomes?.map(\.udid) == manifest.devices.map(\.udid))
            let samples = try EndToEnd.samplesOnDisk(output)
            #expect(samples.count == 3 * 3 * 2)
            for device in lab.devices {
                let mine = samples.filter { $0.deviceUDID == device.udid }
                let launched = device.services.launchHistory.filter { $0.bundleID == app.bundleID }
                #expect(mine.count == 6 && launched.count == 6, "\(device.udid)")
                let expected = try #require(models[device.spec.productType])
                for sample in mine {
                    #expect(sample.productType == device.spec.productType)
                    #expect(sample.logPath?.hasPrefix("logs/\(device.udid)/") == true)
                    let dylib = try #require(sample[.dylibLoadingMs])
                    let planned = sample.kind == .cold ? expected : expected / 2
                    #expect(
                        abs(dylib - planned) <= planned * 0.2, "\(device.udid) \(sample.kind): \(dylib) vs \(planned)")
                }
            }
        }
    }

    @Test func anotherDeviceRebootingDuringRunWithDeviceDoesNotStopIt() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 2, osVersion: "12.5.7")) { lab in
            let (measured, rebooting) = (lab.devices[0], lab.devices[1])
            let app = try EndToEnd.makeApp("Reboots", profile: EndToEnd.profile())
            let output = EndToEnd.temporaryFolder("reboots").appendingPathComponent("results")
            let reboots = lab.keepRebooting(rebooting, times: 2000, pause: .milliseconds(5))
            defer { reboots.cancel() }
            let child = try start(
                ["run", app.url.path, "--device", measured.udid, "--iterations", "3", "--output", output.path], lab: lab
            )
            let status = try await child.waitForExit(timeout: .seconds(120))
            reboots.cancel()
            #expect(status == 0, "stderr: \(child.standardError)")
            let samples = try EndToEnd.samplesOnDisk(output)
            #expect(samples.count == 6 && samples.allSatisfy { $0.status == .ok && $0.deviceUDID == measured.udid })
            #expect(!child.standardError.contains(rebooting.udid))
        }
    }

    @Test func anUnreadableDeviceIsSkippedWithAWarningAndTheOthersAreMeasured() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 2, osVersion: "12.5.7")) { lab in
            let (measured, starting) = (lab.devices[0], lab.devices[1])
            starting.isStartingUp = true
            let app = try EndToEnd.makeApp("Starting", profile: EndToEnd.profile())
            let output = EndToEnd.temporaryFolder("starting").appendingPathComponent("results")
            let child = try start(["run", app.url.path, "--iterations", "2", "--output", output.path], lab: lab)
            let status = try await child.waitForExit(timeout: .seconds(120))
            #expect(status == 3, "a device was not measured; stderr: \(child.standardError)")
            #expect(child.standardError.contains("skipped: Device \(starting.udid)"))
            let samples = try EndToEnd.samplesOnDisk(output)
            #expect(samples.count == 4 && samples.allSatisfy { $0.status == .ok && $0.deviceUDID == measured.udid })
        }
    }

    @Test func anUnknownDeviceIsAnErrorListingTheAttachedOnes() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let app = try EndToEnd.makeApp("Unknown", profile: EndToEnd.profile())
            let output = EndToEnd.temporaryFolder("unknown").appendingPathComponent("results")
            let child = try start(["run", app.url.path, "--device", "NOT-A-UDID", "--output", output.path], lab: lab)
            let status = try await child.waitForExit(timeout: .seconds(60))
            #expect(status == 1)
            #expect(child.standardError.contains("NOT-A-UDID") && child.standardError.contains(lab.devices[0].udid))
            #expect(!FileManager.default.fileExists(atPath: output.path))
        }
    }
}

extension RealPymobiledevice3TunnelTests {
    /// `launchbench demo` as a newcomer runs it (with pymobiledevice3, two phones go through its tunnel;
    /// `LAUNCHBENCH_TUNNEL_TRACE` puts the emulator's TCP anomalies in the stderr a failure quotes).
    @Suite(.timeLimit(.minutes(5))) struct DemoCommandTests {
        @Test func demoMeasuresFourEmulatedDevices() async throws {
            let output = EndToEnd.temporaryFolder("demo").appendingPathComponent("results")
            let child = try LaunchbenchCLI.start(
                ["demo", "--iterations", "2", "--output", output.path],
                environment: ["NO_COLOR": "1", "LAUNCHBENCH_TUNNEL_TRACE": "1"])
            let status = try await child.waitForExit(timeout: .seconds(120))
            #expect(status == 0, "stderr: \(child.standardError)")
            let samples = try EndToEnd.samplesOnDisk(output)
            // With pymobiledevice3 (Scripts/bootstrap installs it) the iOS 17.5, 18.6, 26.1 and 27.1 phones join,
            // measured through its userspace tunnel; without it the demo says how to add them.
            let modern = Pymobiledevice3EndToEnd.executable != nil
            var versions: Set<String> = ["10.3.4", "12.5.7", "14.8", "16.7"]
            if modern { versions.formUnion(["17.5", "18.6", "26.1", "27.1"]) }
            #expect(samples.count == versions.count * 4)
            #expect(samples.allSatisfy { $0.status == .ok })
            #expect(Set(samples.map(\.osVersion)) == versions)
            // dyld prints pre-main up to iOS 14; from 16 on (dyld4) its kdebug events give the phases, read
            // through pymobiledevice3 (without it only the markers measure those launches).
            for sample in samples {
                let printsStatistics = (OSVersion(sample.osVersion)?.major ?? 99) < 15
                let expected: PremainSource? = printsStatistics ? .dyldStatistics : modern ? .kdebug : nil
                #expect(sample.premainSource == expected, "\(sample.osVersion)")
                #expect((sample[.totalPremainMs] != nil) == (expected != nil), "\(sample.osVersion)")
                #expect(sample[.firstFrameMs] != nil)
                // `--launcher auto`: process control, no debugger, wherever a kdebug session runs: kdebug the
                // source, or (iOS 14.8 here, with its override) checking dyld's statistics, which then arrive in
                // process control's output events.
                let traced = modern && (OSVersion(sample.osVersion)?.major ?? 0) >= 14
                let launcher: LaunchMethod = traced ? .processControl : .debugserver
                #expect(sample.launcher == launcher, "\(sample.osVersion)")
            }
            // The summary names each phone's launcher under it.
            #expect(child.standardOutput.contains("Launcher: debugserver"), "stdout: \(child.standardOutput)")
            #expect(child.standardOutput.contains("Launcher: processcontrol") == modern)
            if modern {
                let traces = output.appendingPathComponent("traces")
                let devices = try FileManager.default.contentsOfDirectory(atPath: traces.path)
                #expect(devices.count == 5)  // iOS 16.7, 17.5, 18.6, 26.1 and 27.1
                // The iOS 27 phone behaves as 26 does, and every output for it says what is assumed from 26:
                // the summary under the device, and run.json's notes for it.
                let assumed = "iOS 27.1 is newer than any iOS launchbench was built from"
                #expect(child.standardOutput.contains(assumed), "stdout: \(child.standardOutput)")
                let manifest = try RunManifest.read(from: output.appendingPathComponent("run.json"))
                let phone = try #require(manifest.devices.first { $0.osVersion == "27.1" })
                let notes = manifest.deviceOutcomes?.first { $0.udid == phone.udid }?.notes ?? []
                #expect(notes.contains { $0.contains(assumed) && $0.contains("preloads") }, "\(notes)")
                #expect(!child.standardOutput.contains("iOS 26.1 is newer"))
                // iOS 14.8 prints dyld's statistics (the dyld2 path) and serves kdebug, which times none of
                // that path's phases: the cross-check says so rather than claim agreement.
                #expect(
                    child.standardOutput.contains("kdebug cross-check: none of 4 launches could be compared"),
                    "stdout: \(child.standardOutput)")
            }
            let line = modern ? "userspace tunnel" : "Scripts/bootstrap --with-pymobiledevice3"
            #expect(child.standardError.contains(line), "stderr: \(child.standardError)")
            #expect(child.standardOutput.contains("Results: \(output.path)"))
            #expect(child.standardOutput.contains("first frame"))
        }

        /// A failure while running is a runtime failure: exit 1, the message once, no usage (that is for bad options;
        /// an output path that is a file is one, refused up front with 64). Here: a folder holding someone's file.
        @Test func aRuntimeFailureExitsOneWithTheMessageOnce() async throws {
            let folder = EndToEnd.temporaryFolder("demo-fail")
            try Data("x".utf8).write(to: folder.appendingPathComponent("notes.txt"))
            let child = try LaunchbenchCLI.start(["demo", "--iterations", "1", "--output", folder.path])
            #expect(try await child.waitForExit(timeout: .seconds(120)) == 1, "stderr: \(child.standardError)")
            #expect(child.standardError.contains("Error: Will not write results into \(folder.path)"))
            #expect(child.standardError.components(separatedBy: "Error:").count == 2)
            #expect(!child.standardError.contains("Usage:"))
        }
    }
}

/// `launchbench demo`'s noise seed, without pymobiledevice3 (its subject is the emulated figures, not the
/// iOS 17+ path, which `DemoCommandTests` covers): it runs beside the other suites.
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(5))) struct DemoSeedTests {
    /// The printed figures follow the noise seed: a seed repeats a run, another seed gives other numbers.
    @Test func theSeedRepeatsTheEmulatedFigures() async throws {
        func figures(seed: Int) async throws -> [String: Double] {
            let output = EndToEnd.temporaryFolder("demo-seed").appendingPathComponent("results")
            let child = try LaunchbenchCLI.start(
                ["demo", "--iterations", "1", "--seed", "\(seed)", "--output", output.path],
                environment: EndToEnd.withoutPymobiledevice3.merging(["NO_COLOR": "1"]) { $1 })
            let status = try await child.waitForExit(timeout: .seconds(120))
            #expect(status == 0, "stderr: \(child.standardError)")
            #expect(child.standardError.contains("--seed \(seed)"))
            var result: [String: Double] = [:]
            for sample in try EndToEnd.samplesOnDisk(output) {
                result["\(sample.deviceUDID) \(sample.kind)"] = sample[.firstFrameMs]
            }
            return result
        }
        let first = try await figures(seed: 7)
        #expect(first.count == 8)  // 4 phones × cold, warm
        #expect(try await figures(seed: 7) == first)
        #expect(try await figures(seed: 8) != first)
    }
}
