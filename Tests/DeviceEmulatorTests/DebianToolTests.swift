import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

/// The real Debian clients (libimobiledevice 1.3.0 / libusbmuxd 2.0.2) against a private lab.
@Suite(
    .tags(.emulator, .subprocess),
    .enabled(if: ExternalTool.isInstalled("idevice_id"), "idevice_id missing: run Scripts/bootstrap"),
    .timeLimit(.minutes(5))
)
struct DebianToolTests {
    static let specs = EmulatedDeviceSpec.lab(count: 3, osVersion: "14.8")

    @Test func ideviceIDListsExactlyTheEmulatedDevices() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            let result = try await ExternalTool.run("idevice_id", ["-l"], usbmuxd: lab.usbmuxdSocketAddress)
            #expect(result.exitCode == 0, "stderr: \(result.standardError)")
            #expect(result.lines.sorted() == Self.specs.map(\.udid).sorted())
        }
    }

    @Test func ideviceinfoPrintsTheDeviceIdentity() async throws {
        let spec = EmulatedDeviceSpec(
            udid: "00008101-000A19E83C10001E", name: "Bench Phone", productType: "iPhone13,2", osVersion: "15.7")
        try await PrivateLab.with(devices: [spec]) { lab in
            let result = try await ExternalTool.run(
                "ideviceinfo", ["-u", spec.udid], usbmuxd: lab.usbmuxdSocketAddress)
            #expect(result.exitCode == 0, "stderr: \(result.standardError)")
            let values = Dictionary(
                result.lines.compactMap { line -> (String, String)? in
                    guard let colon = line.firstIndex(of: ":") else { return nil }
                    return (String(line[..<colon]), String(line[line.index(colon, offsetBy: 2)...]))
                }, uniquingKeysWith: { first, _ in first })
            #expect(values["DeviceName"] == "Bench Phone")
            #expect(values["ProductType"] == "iPhone13,2")
            #expect(values["ProductVersion"] == "15.7")
            #expect(values["BuildVersion"] == "19H12")
            #expect(values["UniqueDeviceID"] == spec.udid)
            #expect(values["DeviceClass"] == "iPhone")
            #expect(values["HardwareModel"] == "D53gAP")
            #expect(values["PasswordProtected"] == "false")
        }
    }

    @Test func ideviceinfoReadsOneKey() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            let udid = Self.specs[1].udid
            let result = try await ExternalTool.run(
                "ideviceinfo", ["-u", udid, "-k", "ProductVersion"], usbmuxd: lab.usbmuxdSocketAddress)
            #expect(result.exitCode == 0, "stderr: \(result.standardError)")
            #expect(result.lines == ["14.8"])
        }
    }

    @Test(.enabled(if: ExternalTool.isInstalled("idevicename"), "idevicename missing: run Scripts/bootstrap"))
    func idevicenameReadsAndSetsTheName() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            let spec = Self.specs[2]
            let read = try await ExternalTool.run("idevicename", ["-u", spec.udid], usbmuxd: lab.usbmuxdSocketAddress)
            #expect(read.exitCode == 0, "stderr: \(read.standardError)")
            #expect(read.lines == [spec.name])

            let set = try await ExternalTool.run(
                "idevicename", ["-u", spec.udid, "Renamed Phone"], usbmuxd: lab.usbmuxdSocketAddress)
            #expect(set.exitCode == 0, "stderr: \(set.standardError)")
            #expect(lab.device(udid: spec.udid)?.name == "Renamed Phone")
        }
    }

    @Test func detachedDeviceIsNotListedUntilAttachedAgain() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            let target = Self.specs[0].udid
            try lab.detach(udid: target)
            let during = try await ExternalTool.run("idevice_id", ["-l"], usbmuxd: lab.usbmuxdSocketAddress)
            #expect(during.exitCode == 0)
            #expect(during.lines.sorted() == Self.specs.dropFirst().map(\.udid).sorted())

            let info = try await ExternalTool.run("ideviceinfo", ["-u", target], usbmuxd: lab.usbmuxdSocketAddress)
            #expect(info.exitCode != 0)

            try lab.attach(udid: target)
            let after = try await ExternalTool.run("idevice_id", ["-l"], usbmuxd: lab.usbmuxdSocketAddress)
            #expect(after.lines.sorted() == Self.specs.map(\.udid).sorted())
            let name = try await ExternalTool.run(
                "ideviceinfo", ["-u", target, "-k", "DeviceName"], usbmuxd: lab.usbmuxdSocketAddress)
            #expect(name.lines == [Self.specs[0].name])
        }
    }
}
