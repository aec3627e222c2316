import Foundation
import TestSupport
import Testing

@testable import DeviceEmulator
@testable import EmulatorTestSupport

/// The emulated phone's conditions: lockdown's battery and disk usage keys and diagnostics_relay's IORegistry
/// power source as the sources describe them, the hot-phone model, and the lab commands that change them mid-run.
@Suite(.tags(.emulator), .timeLimit(.minutes(2))) struct EmulatedConditionsTests {
    @Test func theIORegistryAnswersThePowerSourceByClassOrNameAndNothingElse() throws {
        let conditions = EmulatedConditions()
        conditions.batteryPercent = 64
        conditions.charging = true
        let engine = DiagnosticsRelayEngine(powerSource: { conditions.powerSourceEntry })
        for request in [["EntryClass": "IOPMPowerSource"], ["EntryName": "AppleSmartBattery"]] {
            let (reply, effect) = engine.handle(request.merging(["Request": "IORegistry"]) { a, _ in a })
            #expect(effect == .none && reply["Status"] as? String == "Success")
            let entry = try #require((reply["Diagnostics"] as? [String: Any])?["IORegistry"] as? [String: Any])
            #expect(entry["Temperature"] as? Int == 3000)
            #expect(entry["CurrentCapacity"] as? Int == 64 && entry["IsCharging"] as? Bool == true)
        }
        let other = engine.handle(["Request": "IORegistry", "EntryName": "baseband"]).reply
        #expect(((other["Diagnostics"] as? [String: Any])?["IORegistry"] as? [String: Any])?.isEmpty == true)
    }

    @Test func aHotPhoneCoolsAndSlowsLaunchesOnlyAboveTheKnee() async throws {
        let conditions = EmulatedConditions()
        #expect(conditions.temperatureC == 30 && conditions.launchFactor == 1)
        // A microsecond of real time is a second of emulated time here: the phone cools within milliseconds.
        conditions.heat(to: 45, halfLifeSeconds: 1000, timeScale: 1e-6)
        let hot = conditions.temperatureC
        #expect(hot > 44 && hot <= 45)
        #expect(abs(conditions.launchFactor - (1 + 0.03 * (hot - 35))) < 0.01)
        try await Task.sleep(for: .milliseconds(20))
        let cooler = conditions.temperatureC
        #expect(cooler < hot && cooler >= 30)
        conditions.heat(to: 34, timeScale: 1)
        #expect(conditions.launchFactor == 1)
    }

    @Test func labCommandsChangeTheConditionsLockdownServes() async throws {
        #expect(try LabControl.parse("heat 0000-AB 45") == .heat(udid: "0000-AB", celsius: 45, halfLife: 60))
        #expect(try LabControl.parse("heat 0000-AB 41.5 30") == .heat(udid: "0000-AB", celsius: 41.5, halfLife: 30))
        #expect(try LabControl.parse("battery 0000-AB 42") == .battery(udid: "0000-AB", percent: 42))
        #expect(try LabControl.parse("charging 0000-AB ON") == .charging(udid: "0000-AB", on: true))
        for line in ["heat X hot", "heat X 45 0", "battery X 101", "charging X maybe", "heat X"] {
            #expect(throws: EmulatorError.self) { try LabControl.parse(line) }
        }
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "16.7")) { lab in
            let device = lab.devices[0]
            let udid = device.udid
            #expect(await LabControl.handle("battery \(udid) 42", on: lab) == "ok \(udid) battery 42 %")
            #expect(await LabControl.handle("charging \(udid) on", on: lab) == "ok \(udid) charging on")
            #expect(
                device.lockdownValue(domain: "com.apple.mobile.battery", key: "BatteryCurrentCapacity") as? Int == 42)
            #expect(device.lockdownValue(domain: "com.apple.mobile.battery", key: "BatteryIsCharging") as? Bool == true)
            let domain = device.lockdownValue(domain: "com.apple.mobile.battery", key: nil) as? [String: Any]
            #expect(
                domain?["ExternalChargeCapable"] as? Bool == true && domain?["BatteryCurrentCapacity"] as? Int == 42)
            #expect(await LabControl.handle("heat \(udid) 45 3600", on: lab)?.hasPrefix("ok \(udid) at 45") == true)
            #expect(device.services.conditions.temperatureC > 40)
            #expect(await LabControl.handle("heat NOPE 45", on: lab)?.hasPrefix("error: No emulated device") == true)
        }
    }
}
