import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice
import TestSupport
import Testing

extension RealPymobiledevice3TunnelTests {
    /// `doctor` on iOS 17.0–17.3.1, which have no CoreDeviceProxy: the root tunneld is a step of its own, so a
    /// missing one leads the Fixes list with its command (naming the pymobiledevice3 found), and the steps that
    /// fail behind it point there instead of at the disk image or a locked phone (issue 43 item 7).
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(5)), installed) struct DoctorTunneldTests {
        static func doctor(_ device: EmulatedDevice, tunneld: String) async throws -> DoctorReport {
            let engines = try await Pymobiledevice3EndToEnd.driver(selection: .auto, tunneld: tunneld)
            let folder = EndToEnd.temporaryFolder("doctor-tunneld")
            let app = try AppBundle(contentsOf: try SampleApp.write(into: folder))
            var doctor = DeviceDoctor(probe: MobileDeviceDriver(), setup: engines.setup, app: app)
            doctor.launchTimeout = .seconds(30)
            return try await doctor.check(udid: device.udid, folder: folder.appendingPathComponent("run")).report
        }

        @Test func withoutTunneldTheFixesLeadWithTheTunneldCommandOfThePymobiledevice3Found() async throws {
            let program = try #require(Pymobiledevice3EndToEnd.executable)
            // A port nobody listens on: bound, then closed.
            let closed = try await TunneldStandIn.start(lab: try await SharedTestLab.lab())
            let port = closed.port
            await closed.stop()
            try await EndToEnd.withDevices([("iPhone15,2", "17.2")]) { devices in
                let report = try await Self.doctor(devices[0], tunneld: String(port))
                let text = report.render()
                #expect(report[.tunnel]?.state == .fails && report[.tunnel]?.needed == true, "\(text)")
                #expect(report[.tunnel]?.detail.contains("no tunneld answers at 127.0.0.1:\(port)") == true, "\(text)")
                let fixes = text.components(separatedBy: "\nFixes:\n").last?.split(separator: "\n").map(String.init)
                let first = try #require(fixes?.first)
                #expect(first.hasPrefix("  \(DoctorStep.tunnel.rawValue): "), "\(text)")
                #expect(first.contains("`sudo \(program) remote tunneld`"), "\(text)")
                let listed = (fixes ?? []).prefix { $0.hasPrefix("  ") }
                for fix in listed.dropFirst() {
                    #expect(!fix.contains("auto-mount") && !fix.contains("unlock it"), "\(fix)")
                    #expect(fix.contains("fails above"), "\(fix)")
                }
                #expect(!text.contains("`pymobiledevice3 "), "\(text)")
                #expect(!report.ready)
            }
        }

        /// A fix's pymobiledevice3 command names the program launchbench found and the phone, not a bare
        /// `pymobiledevice3 … --udid UDID` that may not be on PATH.
        @Test func aFixNamesThePymobiledevice3FoundAndThePhone() async throws {
            let program = try #require(Pymobiledevice3EndToEnd.executable)
            try await EndToEnd.withDevices([("iPhone15,4", "17.5")]) { devices in
                devices[0].services.developerDiskImageMounted = false
                let report = try await Self.doctor(devices[0], tunneld: "1")
                let fix = try #require(report[.dtservicehub]?.fix, "\(report.render())")
                #expect(fix.contains("`\(program) mounter auto-mount --udid \(devices[0].udid)`"), "\(fix)")
                // The Fixes (details quote what the engine said, as it said it).
                let fixes = report.render().components(separatedBy: "\nFixes:\n").last ?? ""
                #expect(!fixes.contains("`pymobiledevice3 "), "\(fixes)")
            }
        }

        @Test func aTunneldThatServesThePhoneHolds() async throws {
            let tunneld = try await TunneldStandIn.start(lab: try await SharedTestLab.lab())
            defer { Task { await tunneld.stop() } }
            try await EndToEnd.withDevices([("iPhone15,2", "17.2")]) { devices in
                let report = try await Self.doctor(devices[0], tunneld: String(tunneld.port))
                #expect(report[.tunnel]?.state == .holds, "\(report.render())")
                #expect(report[.tunnel]?.detail.contains("serves 1 tunnel to this phone") == true, "\(report.render())")
                #expect(report.ready, "\(report.render())")
            }
        }
    }
}
