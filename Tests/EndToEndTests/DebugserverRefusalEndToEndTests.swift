import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

/// What launchbench records when debugserver cannot launch the app, through `--launcher debugserver` and through
/// `auto` on an iOS 13 phone (no instruments service there, so debugserver is its only launcher): each launch is
/// refused, and its message names the device, the cause and the fix, as a refusal through process control does.
@Suite(.tags(.emulator), .timeLimit(.minutes(5))) struct DebugserverRefusalEndToEndTests {
    enum Fault: String, CaseIterable {
        case invalidSignature = "invalid signature"
        case untrustedProfile = "untrusted profile"
        case noDiskImage = "no Developer Disk Image"
        case developerModeOff = "Developer Mode off"
    }

    static let cases: [(Fault, LauncherChoice, String)] = [
        (.invalidSignature, .debugserver, "16.7"), (.untrustedProfile, .debugserver, "16.7"),
        (.invalidSignature, .auto, "13.7"), (.untrustedProfile, .auto, "13.7"),
        (.noDiskImage, .debugserver, "14.8"), (.noDiskImage, .auto, "13.7"),
        (.developerModeOff, .debugserver, "16.7"),
    ]

    @Test(arguments: cases)
    func eachLaunchIsRefusedNamingTheCauseAndTheFix(fault: Fault, launcher: LauncherChoice, osVersion: String)
        async throws
    {
        try await EndToEnd.withDevices([("iPhone12,1", osVersion)]) { devices in  // iPhone 11: iOS 13–18
            let device = devices[0]
            var profile = EndToEnd.profile()
            switch fault {
            case .invalidSignature: profile.codeSignatureValid = false
            case .untrustedProfile: device.services.trustsAppDevelopers = false
            case .noDiskImage: device.services.developerDiskImageMounted = false
            case .developerModeOff:
                device.setLockdownValue(false, domain: "com.apple.security.mac.amfi", key: "DeveloperModeStatus")
            }
            let app = try EndToEnd.makeApp("Refused", profile: profile)
            var plan = EndToEnd.plan(app, devices: devices, iterations: 1)
            plan.launcher = launcher
            let result = try await EndToEnd.run(plan)
            let samples = try result.samples
            #expect(samples.count == 2)
            let (cause, fix) = Self.expected(fault)
            for sample in samples {
                let message = sample.message ?? ""
                #expect(sample.status == .launchRefused && sample.launcher == .debugserver, "\(message)")
                #expect(message.contains(device.udid), "\(message)")
                #expect(message.contains(cause) && message.contains(fix), "\(message)")
            }
            #expect(device.services.launchHistory.isEmpty)
        }
    }

    /// Words of the cause and of the fix each fault's message must hold.
    static func expected(_ fault: Fault) -> (cause: String, fix: String) {
        switch fault {
        case .invalidSignature, .untrustedProfile:
            ("through debugserver: its code signature is invalid", "Settings > General > VPN & Device Management")
        case .noDiskImage: ("the Developer Disk Image is not mounted", "ideviceimagemounter")
        case .developerModeOff: ("Developer Mode is off", "Settings > Privacy & Security > Developer Mode")
        }
    }
}
