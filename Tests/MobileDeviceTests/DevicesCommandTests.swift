import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

/// `launchbench devices` as a user runs it: the built binary in a subprocess, with its own lab (the
/// address goes to the child only; this process's environment is never changed). An address that is wrong or
/// unreachable needs no lab: those are `Fixtures/cli` cases (devices-bad-usbmuxd-address, devices-unreachable-usbmuxd).
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(5))) struct DevicesCommandTests {
    func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (Int32?, String, String) {
        let outcome = try await LaunchbenchCLI.run(arguments, environment: environment, timeout: .seconds(60))
        return (outcome.status, outcome.stdout, outcome.stderr)
    }

    @Test func jsonListsThePrivateLabsDevicesWithExactlyTheDocumentedKeys() async throws {
        let specs = [
            EmulatedDeviceSpec.numbered(1, productType: "iPhone12,1", osVersion: "14.8"),
            EmulatedDeviceSpec.numbered(2, productType: "iPhone10,3", osVersion: "13.7"),
            EmulatedDeviceSpec.numbered(3, productType: "iPhone99,9", osVersion: "15.7"),
        ]
        try await PrivateLab.with(devices: specs) { lab in
            let (status, output, _) = try await run(["devices", "--json", "--usbmuxd", lab.usbmuxdSocketAddress])
            #expect(status == 0)
            let objects = try #require(
                try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: String]])
            #expect(objects.count == 3)
            for object in objects {
                #expect(
                    Set(object.keys) == [
                        "udid", "name", "productType", "modelName", "osVersion", "buildVersion", "connection",
                        "engine", "engineReason", "developerMode", "diskImage",
                    ])
            }
            for spec in specs {
                let object = try #require(objects.first { $0["udid"] == spec.udid })
                #expect(object["name"] == spec.name)
                #expect(object["productType"] == spec.productType)
                #expect(object["modelName"] == DeviceModels.marketingName(for: spec.productType))
                #expect(object["osVersion"] == spec.osVersion)
                #expect(object["buildVersion"] == spec.buildVersion)
                #expect(object["connection"] == "USB")
                #expect(object["engine"] == "libimobiledevice")
                #expect(object["engineReason"] == "iOS \(spec.osVersion) offers debugserver through lockdown")
            }
        }
    }

    /// An iOS 27 phone is listed with what launchbench assumes from iOS 26 there (its dyld source is not public);
    /// an iOS 26 one without.
    @Test func anIOS27PhoneSaysWhatIsAssumedFrom26() async throws {
        let specs = [
            EmulatedDeviceSpec.numbered(1, productType: "iPhone18,3", osVersion: "27.1"),
            EmulatedDeviceSpec.numbered(2, productType: "iPhone16,1", osVersion: "26.1"),
        ]
        try await PrivateLab.with(devices: specs) { lab in
            let (status, output, _) = try await run(["devices", "--json", "--usbmuxd", lab.usbmuxdSocketAddress])
            #expect(status == 0)
            let objects = try #require(
                try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: String]])
            let newer = try #require(objects.first { $0["osVersion"] == "27.1" })
            #expect(newer["modelName"] == "iPhone 17")
            #expect(newer["assumedFromIOS26"]?.contains("assumed from iOS 26 until a phone confirms them") == true)
            #expect(objects.first { $0["osVersion"] == "26.1" }?["assumedFromIOS26"] == nil)
            let (_, table, _) = try await run(["devices", "--usbmuxd", lab.usbmuxdSocketAddress])
            #expect(table.components(separatedBy: "assumed from iOS 26").count == 2, "\(table)")
        }
    }

    @Test func tableShowsModelVersionAndConnection() async throws {
        let spec = EmulatedDeviceSpec.numbered(7, productType: "iPhone12,1", osVersion: "14.8")
        try await PrivateLab.with(devices: [spec]) { lab in
            // The environment variable (child only) works like --usbmuxd.
            let (status, output, _) = try await run(
                ["devices"], environment: ["USBMUXD_SOCKET_ADDRESS": lab.usbmuxdSocketAddress])
            #expect(status == 0)
            let lines = output.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("UDID") == true)
            let row = try #require(lines.first { $0.hasPrefix(spec.udid) })
            #expect(row.contains(spec.name))
            #expect(row.contains("iPhone 11 (iPhone12,1)"))
            #expect(row.contains("14.8 (\(spec.buildVersion))"))
            #expect(row.contains("USB"))
            #expect(row.contains("libimobiledevice"))
        }
    }

    @Test func aNameWithLineBreaksStaysInItsRow() async throws {
        // Users name their phones; lockdown reports the name verbatim. It must not print a line of its own.
        let specs = ["\r\n", "\n", "\r", "\u{2028}"].enumerated().map { index, lineBreak in
            EmulatedDeviceSpec.numbered(index + 1, productType: "iPhone12,1", osVersion: "14.8")
                .named("Lab\(lineBreak)Gate: PASSED")
        }
        try await PrivateLab.with(devices: specs) { lab in
            let (status, output, errors) = try await run(["devices", "--usbmuxd", lab.usbmuxdSocketAddress])
            #expect(status == 0)
            for text in [output, errors] {
                let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
                #expect(!lines.contains { $0.hasPrefix("Gate:") }, "\(text)")
            }
            let rows = output.split(separator: "\n").filter { $0.hasPrefix("00008030-") && $0.contains("Lab\\u{") }
            #expect(rows.count == specs.count, "\(output)")
        }
    }

    @Test func anIOS17DeviceWithNoEngineGetsAdviceNamingTheInstallCommand() async throws {
        let specs = [
            EmulatedDeviceSpec.numbered(1, productType: "iPhone15,4", osVersion: "17.5"),
            EmulatedDeviceSpec.numbered(2, productType: "iPhone14,5", osVersion: "16.7"),
        ]
        try await PrivateLab.with(devices: specs) { lab in
            // A LAUNCHBENCH_PYMOBILEDEVICE3 that is not there: pymobiledevice3 counts as not installed.
            let (status, output, _) = try await run(
                ["devices", "--json", "--usbmuxd", lab.usbmuxdSocketAddress],
                environment: ["LAUNCHBENCH_PYMOBILEDEVICE3": "/nonexistent/pymobiledevice3"])
            #expect(status == 0)
            let objects = try #require(
                try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: String]])
            let modern = try #require(objects.first { $0["udid"] == specs[0].udid })
            #expect(modern["engine"] == "none")
            #expect(modern["engineReason"]?.contains("iOS 17.5") == true)
            #expect(modern["engineReason"]?.contains("`Scripts/bootstrap --with-pymobiledevice3`") == true)
            #expect(modern["engineReason"]?.contains("`pipx install pymobiledevice3==11.45.0`") == true)
            #expect(modern["developerMode"] == "ready")  // lockdown's amfi domain says so
            let older = try #require(objects.first { $0["udid"] == specs[1].udid })
            #expect(older["engine"] == "libimobiledevice")
            #expect(older["developerMode"] == "ready")

            // With pymobiledevice3 found, the iOS 17 device gets it; the table says which and why.
            let standIn = PackageRoot.at("Tests/LaunchEnginesTests/Fixtures/pymobiledevice3/pymobiledevice3").path
            let (tableStatus, table, _) = try await run(
                ["devices", "--usbmuxd", lab.usbmuxdSocketAddress],
                environment: ["LAUNCHBENCH_PYMOBILEDEVICE3": standIn])
            #expect(tableStatus == 0)
            let row = try #require(table.split(separator: "\n").first { $0.hasPrefix(specs[0].udid) })
            #expect(row.contains("pymobiledevice3"))
            #expect(table.contains("\(specs[0].udid): pymobiledevice3 — iOS 17.5: lockdown has no debugserver"))
        }
    }

    @Test func noDevicesIsNotAnError() async throws {
        try await PrivateLab.with(devices: []) { lab in
            let (status, output, errors) = try await run(["devices", "--json", "--usbmuxd", lab.usbmuxdSocketAddress])
            #expect(status == 0)
            #expect(output == "[]\n")
            #expect(errors.contains("No devices attached"))
        }
    }

    /// Only with a real iPhone attached: `LAUNCHBENCH_DEVICE_UDID=<udid> swift test --filter realDevice`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["LAUNCHBENCH_DEVICE_UDID"] != nil))
    func realDeviceIsListedThroughTheSystemUsbmuxd() async throws {
        let udid = try #require(ProcessInfo.processInfo.environment["LAUNCHBENCH_DEVICE_UDID"])
        // The system daemon, explicitly: this test process's environment points at the shared lab.
        let (status, output, errors) = try await run(["devices", "--json", "--usbmuxd", "UNIX:/var/run/usbmuxd"])
        #expect(status == 0, "\(errors)")
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: String]])
        let device = try #require(objects.first { $0["udid"] == udid })
        #expect(device["osVersion"]?.isEmpty == false)
    }
}
