import EmulatorTestSupport
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice
import TestSupport
import Testing

@testable import DeviceEmulator

extension RealPymobiledevice3TunnelTests {
    /// `launchbench doctor` against emulated phones through the real pymobiledevice3 (kdebug session, tunnel):
    /// every step holds on healthy iOS 16.7 and 17.5 phones, and each fault makes the step it breaks fail.
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(5)), installed) struct DoctorTests {
        /// Runs doctor on `device` with `app` (the sample app by default).
        static func doctor(
            _ device: EmulatedDevice, app: AppBundle? = nil, timeout: Duration = .seconds(30),
            onRow: @escaping @Sendable (DoctorRow) -> Void = { _ in }
        ) async throws -> DoctorOutcome {
            let engines = try await Pymobiledevice3EndToEnd.driver(selection: .auto)
            let bundle: AppBundle
            if let app {
                bundle = app
            } else {
                let folder = EndToEnd.temporaryFolder("doctor-sample")
                bundle = try AppBundle(contentsOf: try SampleApp.write(into: folder))
            }
            var doctor = DeviceDoctor(probe: MobileDeviceDriver(), setup: engines.setup, app: bundle)
            doctor.launchTimeout = timeout
            doctor.onRow = onRow
            return try await doctor.check(udid: device.udid, folder: EndToEnd.temporaryFolder("doctor"))
        }

        static func expect(
            _ report: DoctorReport, fails step: DoctorStep, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            #expect(report[step]?.state == .fails, "\(report.render())", sourceLocation: sourceLocation)
            #expect(report[step]?.fix?.isEmpty == false, "\(report.render())", sourceLocation: sourceLocation)
            #expect(!report.ready, sourceLocation: sourceLocation)
        }

        @Test func everyStepHoldsOnHealthyIOS16And17Phones() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7"), ("iPhone15,4", "17.5")]) { devices in
                for device in devices {
                    let outcome = try await Self.doctor(device)
                    let report = outcome.report
                    let modern = device.spec.osVersion == "17.5"
                    #expect(report.ready, "\(report.render())")
                    let expected = DoctorStep.allCases.filter {
                        (modern || ![.tunnel, .debugproxy, .dtservicehub].contains($0))
                            && !DoctorStep.newerIOSSteps.contains($0)
                    }
                    #expect(report.rows.map(\.step) == expected)
                    for row in report.rows {
                        // On 17.5 launches go through process control, so debugproxy is not used (not needed).
                        let holds = row.state == .holds || (row.step == .debugproxy && !row.needed)
                        #expect(holds, "\(device.spec.osVersion) \(row.step.rawValue): \(row.detail)")
                    }
                    #expect(report[.launch]?.detail.contains("processcontrol") == true)
                    #expect(report[.buildClosure]?.detail.contains("built the launch closure") == true)
                    // The helper logs the phone's whole machTimeInfo reply (its length is unverified on a phone).
                    #expect(report[.machTimeInfo]?.detail.contains("the whole reply: [") == true)
                    // The emulated phone opens the session with a `started` notice, which the helper logs.
                    #expect(
                        report[.firstMessage]?.detail.hasPrefix("a notice {") == true,
                        "\(report[.firstMessage]?.detail ?? "")")
                    try Self.expectCapture(outcome, lab: try await SharedTestLab.lab())
                }
            }
        }

        /// iOS 27.1, which behaves as 26 does: doctor says which facts assumed from 26 the phone showed, and
        /// whether the cold launch after the reinstall found the app prelaunched (iOS 27 preloads apps' data).
        @Test func onIOS27TheAssumedFactsAndAPreloadAreChecked() async throws {
            try await EndToEnd.withDevices([("iPhone18,3", "27.1")]) { devices in
                let healthy = try await Self.doctor(devices[0]).report
                #expect(healthy.ready, "\(healthy.render())")
                #expect(Array(healthy.rows.map(\.step).suffix(2)) == [.assumedFacts, .preload])
                let facts = try #require(healthy[.assumedFacts])
                #expect(facts.state == .holds && !facts.needed, "\(healthy.render())")
                #expect(facts.detail.contains("iOS 27.1 behaves here as iOS 26 does: dyld's kdebug events"))
                #expect(healthy[.preload]?.state == .holds, "\(healthy.render())")

                // The phone prelaunches the app after its install: the launch after the reinstall was not cold.
                let app = try EndToEnd.makeApp("Preloaded", profile: EndToEnd.profile())
                devices[0].prelaunches.schedule(.prewarm, bundleID: app.bundleID, afterInstall: 1)
                let preloaded = try await Self.doctor(devices[0], app: app).report
                let row = try #require(preloaded[.preload])
                #expect(row.state == .fails && !row.needed, "\(preloaded.render())")
                #expect(row.detail.hasPrefix("a prewarm"), "\(row.detail)")
                #expect(row.fix?.contains("preloads the data apps need when opened") == true)
                #expect(preloaded.ready, "a fact, not a requirement: \(preloaded.render())")
            }
        }

        /// `--launcher debugserver` on iOS 17.5: the launch goes through debugproxy, which the step then checks.
        @Test func withDebugserverTheLaunchChecksDebugproxy() async throws {
            try await EndToEnd.withDevices([("iPhone15,4", "17.5")]) { devices in
                let engines = try await Pymobiledevice3EndToEnd.driver(selection: .auto)
                let folder = EndToEnd.temporaryFolder("doctor-debugserver")
                var doctor = DeviceDoctor(
                    probe: MobileDeviceDriver(), setup: engines.setup,
                    app: try AppBundle(contentsOf: try SampleApp.write(into: folder)))
                doctor.launcher = .debugserver
                let report = try await doctor.check(udid: devices[0].udid, folder: folder.appendingPathComponent("run"))
                    .report
                #expect(report.ready, "\(report.render())")
                #expect(report[.debugproxy]?.state == .holds && report[.debugproxy]?.needed == true)
                #expect(report[.launch]?.detail.contains("debugserver") == true, "\(report.render())")
            }
        }

        /// Unplugged during the launch: the launch step names it, and what the launch would show is unknown.
        @Test func aPhoneThatGoesAwayDuringTheLaunchNamesTheLaunch() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                let lab = try await SharedTestLab.lab()
                let udid = devices[0].udid
                let report = try await Self.doctor(devices[0]) { row in
                    if row.step == .lockdownServices { try? lab.detach(udid: udid) }
                }.report
                try? lab.attach(udid: udid)
                Self.expect(report, fails: .launch)
                #expect(report[.launch]?.detail.contains("went away") == true, "\(report.render())")
                #expect(
                    report.rows.map(\.step)
                        == DoctorStep.allCases.filter {
                            ![.tunnel, .debugproxy, .dtservicehub].contains($0)
                                && !DoctorStep.newerIOSSteps.contains($0)
                        })
                let others = report.rows.drop { $0.step != .lockdownServices }.dropFirst().filter { $0.step != .launch }
                #expect(others.allSatisfy { $0.state == .unknown }, "\(report.render())")
            }
        }

        /// What --capture writes: private (0700), the raw kdebug, its parse, the logs, the phone's model; no pair
        /// record and none of the lab's host IDs.
        static func expectCapture(_ outcome: DoctorOutcome, lab: EmulatedLab) throws {
            let folder = EndToEnd.temporaryFolder("capture").appendingPathComponent("bug")
            let files = try DoctorCapture.write(outcome, to: folder)
            let mode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
            #expect(mode == 0o700)
            #expect(files.contains { $0.hasPrefix("kdebug/") && $0.hasSuffix("-cold.kdebug") }, "\(files)")
            #expect(files.contains("kdebug-parse.txt"))
            #expect(files.contains { $0.hasSuffix("kdebug-tap.log") }, "\(files)")
            #expect(files.contains { $0.hasSuffix("0001-cold.log") }, "\(files)")
            let tap = try #require(files.first { $0.hasSuffix("kdebug-tap.log") })
            let log = try String(contentsOf: folder.appendingPathComponent(tap), encoding: .utf8)
            #expect(log.contains("message 1 after start: "), "\(log)")
            let device = try String(contentsOf: folder.appendingPathComponent("device.json"), encoding: .utf8)
            #expect(device.contains(outcome.report.device?.productType ?? "?"))
            for file in files {
                let data = try Data(contentsOf: folder.appendingPathComponent(file))
                let text = String(decoding: data, as: UTF8.self)
                #expect(!text.contains(lab.hostID) && !text.contains(lab.systemBUID), "\(file)")
            }
        }

        @Test func anUnmountedDiskImageIsNamedOnBothPhones() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7"), ("iPhone15,4", "17.5")]) { devices in
                for device in devices {
                    device.services.developerDiskImageMounted = false
                    let report = try await Self.doctor(device).report
                    Self.expect(report, fails: .diskImage)
                    // iOS 16: lockdown refuses the instruments service; 17: RSD lists neither dtservicehub nor
                    // debugproxy (the launch falls back to debugserver without a kdebug session).
                    if device.spec.osVersion == "16.7" {
                        Self.expect(report, fails: .lockdownServices)
                    } else {
                        Self.expect(report, fails: .dtservicehub)
                        Self.expect(report, fails: .debugproxy)
                    }
                }
            }
        }

        @Test func developerModeOffIsNamed() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                devices[0].setLockdownValue(false, domain: "com.apple.security.mac.amfi", key: "DeveloperModeStatus")
                let report = try await Self.doctor(devices[0]).report
                Self.expect(report, fails: .developerMode)
                #expect(report[.developerMode]?.fix?.contains("Settings > Privacy & Security") == true)
            }
        }

        @Test func aRefusedTunnelServiceIsNamed() async throws {
            try await EndToEnd.withDevices([("iPhone15,4", "17.5")]) { devices in
                devices[0].services.coreDeviceProxyRefusal = "PasswordProtected"
                let report = try await Self.doctor(devices[0]).report
                Self.expect(report, fails: .tunnel)
                #expect(report[.tunnel]?.detail.contains("Password protected") == true, "\(report.render())")
            }
        }

        @Test func aRecordingThatHoldsKperfIsNamed() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                let other = try await Pymobiledevice3EndToEnd.kdebugTracer(
                    logFolder: EndToEnd.temporaryFolder("doctor-kperf"))
                let recording = try await other.startTrace(on: devices[0].info)
                let report: DoctorReport
                do {
                    report = try await Self.doctor(devices[0]).report
                } catch {
                    await recording.stop()
                    throw error
                }
                await recording.stop()
                Self.expect(report, fails: .kperf)
                Self.expect(report, fails: .firstMessage)
                #expect(report[.dyldEvents]?.state == .unknown)
            }
        }

        @Test func aFailedInstallFailsTheLaunch() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                devices[0].services.installFailure = InstallFailure(error: "ApplicationVerificationFailed")
                let report = try await Self.doctor(devices[0]).report
                Self.expect(report, fails: .launch)
                #expect(report[.launch]?.detail.contains("install-failed") == true, "\(report.render())")
            }
        }

        /// An app that hangs before drawing: no first frame in the trace, and the launch times out.
        @Test func anAppThatNeverDrawsFailsTheFirstFrame() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                let profile = EndToEnd.profile(
                    faults: Faults(hang: PointFault(when: LaunchSelector(probability: 1), after: "didFinishLaunching")))
                let app = try EndToEnd.makeApp("NeverDraws", profile: profile)
                let report = try await Self.doctor(devices[0], app: app, timeout: .seconds(4)).report
                #expect(report[.firstFrame]?.state == .fails, "\(report.render())")
                #expect(report[.dyldEvents]?.state == .holds, "\(report.render())")
                Self.expect(report, fails: .launch)
            }
        }

        /// Unplugged while doctor checks it: the step then names it, every later step is unknown.
        @Test func aPhoneThatGoesAwayFinishesTheTable() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                let lab = try await SharedTestLab.lab()
                let udid = devices[0].udid
                let report = try await Self.doctor(devices[0]) { row in
                    if row.step == .diskImage { try? lab.detach(udid: udid) }
                }.report
                try? lab.attach(udid: udid)
                Self.expect(report, fails: .lockdownServices)
                #expect(report[.lockdownServices]?.detail.contains("went away") == true, "\(report.render())")
                let after = report.rows.drop { $0.step != .lockdownServices }.dropFirst()
                #expect(!after.isEmpty)
                #expect(after.allSatisfy { $0.state == .unknown }, "\(report.render())")
                #expect(report.rows.last?.step == .delivery)
            }
        }
    }
}

/// `launchbench doctor`'s bad input and an unreachable usbmuxd, through the built binary.
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(2))) struct DoctorCommandTests {
    @Test func anUnknownDeviceExits64NamingItAndTheAttachedOnes() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "16.7")) { lab in
            let outcome = try await LaunchbenchCLI.run(
                ["doctor", "--device", "00008030-NOTATTACHED", "--usbmuxd", lab.usbmuxdSocketAddress])
            #expect(outcome.status == 64, "\(outcome.stderr)")
            #expect(outcome.stderr.contains("00008030-NOTATTACHED"))
            #expect(outcome.stderr.contains(lab.devices[0].udid))
        }
    }

    @Test func severalPhonesWithoutADeviceExit64ListingThem() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 2, osVersion: "16.7")) { lab in
            let outcome = try await LaunchbenchCLI.run(["doctor", "--usbmuxd", lab.usbmuxdSocketAddress])
            #expect(outcome.status == 64, "\(outcome.stderr)")
            #expect(outcome.stderr.contains("--device"), "\(outcome.stderr)")
            for device in lab.devices { #expect(outcome.stderr.contains(device.udid), "\(outcome.stderr)") }
        }
    }

    @Test func aMissingAppExits64NamingIt() async throws {
        let outcome = try await LaunchbenchCLI.run(["doctor", "--app", "/nonexistent/Missing.app"])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("/nonexistent/Missing.app"), "\(outcome.stderr)")
    }

    @Test func anAppThatIsNoAppExits64NamingIt() async throws {
        let file = EndToEnd.temporaryFolder("doctor-notapp").appendingPathComponent("notes.txt")
        try Data("not an app".utf8).write(to: file)
        let outcome = try await LaunchbenchCLI.run(["doctor", "--app", file.path])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains(file.path), "\(outcome.stderr)")
    }

    @Test func anUnreachableUsbmuxdFailsTheFirstStepAndLeavesTheRestUnknown() async throws {
        let socket = EndToEnd.temporaryFolder("doctor-nomux").appendingPathComponent("none.sock")
        let outcome = try await LaunchbenchCLI.run(["doctor", "--usbmuxd", "UNIX:" + socket.path])
        #expect(outcome.status == 1, "\(outcome.stderr)")
        let rows = outcome.stdout.split(separator: "\n")
        #expect(rows.contains { $0.hasPrefix("usbmuxd reachable") && $0.contains("fails") }, "\(outcome.stdout)")
        #expect(rows.contains { $0.hasPrefix("launch ") && $0.contains("unknown") }, "\(outcome.stdout)")
        #expect(outcome.stdout.contains("Fixes:"))
    }
}

extension RealPymobiledevice3TunnelTests.DoctorTests {
    /// A phone that forgot this host's pairing refuses the lockdown session: the pairing step names it.
    @Test func aPhoneThatForgotThePairingIsNamed() async throws {
        try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
            let lab = try await SharedTestLab.lab()
            lab.setForgetsPairing(true, udid: devices[0].udid)
            let report: DoctorReport
            do {
                report = try await Self.doctor(devices[0]).report
            } catch {
                lab.setForgetsPairing(false, udid: devices[0].udid)
                throw error
            }
            lab.setForgetsPairing(false, udid: devices[0].udid)
            Self.expect(report, fails: .pairing)
            #expect(report[.pairing]?.fix?.contains("Trust") == true)
            #expect(report.rows.drop { $0.step != .pairing }.dropFirst().allSatisfy { $0.state != .holds })
        }
    }
}

extension RealPymobiledevice3TunnelTests.DoctorTests {
    /// A trace buffer that wraps during the launch: the lost-events record fails the delivery step.
    @Test func droppedEventsFailTheDelivery() async throws {
        try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
            let taps = devices[0].serviceState(KdebugTaps.self) { KdebugTaps() }
            taps.dropsEvents = true
            let report: DoctorReport
            do {
                report = try await Self.doctor(devices[0]).report
            } catch {
                taps.dropsEvents = false
                throw error
            }
            taps.dropsEvents = false
            Self.expect(report, fails: .delivery)
            #expect(report[.delivery]?.detail.contains("dropped events") == true, "\(report.render())")
        }
    }

    /// The command itself, with its default app (the sample app, as `demo` writes it) and --capture, against a
    /// private lab: every step holds (exit 0), rows on stdout, the capture written.
    @Test func theCommandChecksTheSampleAppAndCaptures() async throws {
        let executable = try #require(Pymobiledevice3EndToEnd.executable)
        try await PrivateLab.with(devices: [.numbered(1, productType: "iPhone14,5", osVersion: "16.7")]) { lab in
            let capture = EndToEnd.temporaryFolder("doctor-cli").appendingPathComponent("capture")
            let outcome = try await LaunchbenchCLI.run(
                [
                    "doctor", "--device", lab.devices[0].udid, "--usbmuxd", lab.usbmuxdSocketAddress, "--capture",
                    capture.path,
                ],
                environment: ["LAUNCHBENCH_PYMOBILEDEVICE3": executable, "NO_COLOR": "1"], timeout: .seconds(180))
            #expect(outcome.status == 0, "\(outcome.stdout)\n\(outcome.stderr)")
            #expect(outcome.stdout.contains("Ready: every step a run needs holds."), "\(outcome.stdout)")
            #expect(outcome.stdout.contains("of Sample (pid"), "\(outcome.stdout)")
            #expect(outcome.stdout.contains("no pair record, keys or host IDs"))
            let readme = try String(contentsOf: capture.appendingPathComponent("README.txt"), encoding: .utf8)
            #expect(readme.contains("Not included"))
        }
    }
}

extension RealPymobiledevice3TunnelTests.DoctorTests {
    /// A phone that sends no dyld events for the app: the step that reads them fails, the launch itself holds.
    @Test func dyldEventsThatNeverArriveAreNamed() async throws {
        try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
            let taps = devices[0].serviceState(KdebugTaps.self) { KdebugTaps() }
            taps.withholdsDyldEvents = true
            let report: DoctorReport
            do {
                report = try await Self.doctor(devices[0]).report
            } catch {
                taps.withholdsDyldEvents = false
                throw error
            }
            taps.withholdsDyldEvents = false
            Self.expect(report, fails: .dyldEvents)
            #expect(report[.dyldEvents]?.detail.contains("no dyld launch of the app") == true, "\(report.render())")
        }
    }
}
