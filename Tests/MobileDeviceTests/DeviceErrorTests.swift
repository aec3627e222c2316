import Foundation
import LaunchBench
import Testing

@testable import MobileDevice

@Suite struct DeviceErrorTests {
    let udid = "00008030-001A2D4E0C38802E"

    @Test(arguments: [
        (Int32(-17), "passcodeLocked"), (-35, "passcodeLocked"),
        (-21, "notTrusted"), (-20, "notTrusted"), (-29, "notTrusted"), (-31, "notTrusted"), (-4, "notTrusted"),
        (-18, "notTrusted"), (-19, "notTrusted"), (-2, "notTrusted"),
        (-27, "serviceUnavailable"), (-26, "serviceUnavailable"), (-34, "serviceUnavailable"),
        (-28, "serviceUnavailable"),
        (-8, "failed"), (-7, "failed"), (-256, "failed"),
    ])
    func lockdownCodesMapToTheRightCase(code: Int32, expected: String) {
        let error = DeviceError.mapped(
            lockdown: code, operation: "lockdownd_client_new_with_handshake", udid: udid, service: "com.apple.afc")
        let name: String
        switch error {
        case .passcodeLocked: name = "passcodeLocked"
        case .notTrusted: name = "notTrusted"
        case .serviceUnavailable: name = "serviceUnavailable"
        case .failed: name = "failed"
        default: name = "\(error)"
        }
        #expect(name == expected)
        // The raw code and the operation survive the mapping.
        #expect(error.call?.code == code)
        #expect(error.call?.operation == "lockdownd_client_new_with_handshake")
        #expect(error.call?.library == .lockdownd)
    }

    @Test func lockdownTextComesFromTheLibrary() {
        let call = LibraryCall.lockdown(-17, operation: "lockdownd_start_service")
        #expect(call.text == "Password protected")
        #expect(call.description == "lockdownd_start_service: Password protected (lockdownd error -17)")
    }

    @Test func messagesSayWhatToDo() throws {
        let locked = DeviceError.mapped(lockdown: -17, operation: "x", udid: udid, service: nil)
        #expect(try #require(locked.errorDescription).contains("Unlock it"))
        let untrusted = DeviceError.mapped(lockdown: -21, operation: "x", udid: udid, service: nil)
        #expect(try #require(untrusted.errorDescription).contains("tap Trust"))
        #expect(try #require(untrusted.errorDescription).contains(udid))
        let refused = DeviceError.mapped(lockdown: -27, operation: "x", udid: udid, service: "com.apple.afc")
        #expect(try #require(refused.errorDescription).contains("com.apple.afc"))
    }

    @Test func unknownUDIDListsTheAttachedOnes() throws {
        let error = DeviceError.deviceNotFound(udid: "nope", attached: ["A-1", "B-2"])
        let text = try #require(error.errorDescription)
        #expect(text.contains("nope") && text.contains("A-1, B-2"))
        let none = try #require(DeviceError.deviceNotFound(udid: "nope", attached: []).errorDescription)
        #expect(none.contains("no iPhone is attached"))
    }

    @Test func unreachableUsbmuxdNamesTheAddressAndTheFix() throws {
        let custom = try #require(
            DeviceError.usbmuxdUnreachable(address: .unix(path: "/nonexistent/sock"), call: nil).errorDescription)
        #expect(custom.contains("UNIX:/nonexistent/sock"))
        let remote = try #require(
            DeviceError.usbmuxdUnreachable(address: .tcp(host: "lab.example", port: 27015), call: nil).errorDescription)
        #expect(remote.contains("lab.example:27015"))
        let system = try #require(DeviceError.usbmuxdUnreachable(address: nil, call: nil).errorDescription)
        #expect(system.contains("/var/run/usbmuxd"))
        #if os(Linux)
            #expect(system.contains("sudo systemctl start usbmuxd"))
        #endif
    }

    @Test func debugserverMessageDependsOnTheIOSVersion() throws {
        let ios17 = try #require(
            DeviceError.debugserverUnavailable(udid: udid, deviceName: "Ana's iPhone", osVersion: "17.5", call: nil)
                .errorDescription)
        #expect(ios17.contains("iOS 17"))
        #expect(ios17.contains("no longer offers debugserver"))
        #expect(ios17.contains("Ana's iPhone") && ios17.contains(udid))
        let ios14 = try #require(
            DeviceError.debugserverUnavailable(udid: udid, deviceName: "Old", osVersion: "14.8", call: nil)
                .errorDescription)
        #expect(ios14.contains("Developer Disk Image"))
        #expect(!ios14.contains("no longer offers"))
        let modeOff = try #require(
            DeviceError.debugserverUnavailable(
                udid: udid, deviceName: "Ana's iPhone", osVersion: "16.7", developerModeOff: true, call: nil
            ).errorDescription)
        #expect(modeOff.contains("Developer Mode is off"), "\(modeOff)")
        #expect(modeOff.contains("Settings > Privacy & Security > Developer Mode"), "\(modeOff)")
        #expect(modeOff.contains("Ana's iPhone") && modeOff.contains(udid))
    }

    @Test func failureKindsTellTheRunnerWhatHappened() {
        let call = LibraryCall.afc(18, operation: "afc_file_write")
        #expect(DeviceError.deviceLost(udid: udid, operation: "x").failureKind == .deviceLost)
        #expect(DeviceError.uploadFailed(path: "p", udid: udid, call: call).failureKind == .installFailed)
        #expect(
            DeviceError.installFailed(
                step: .install, bundleID: "a.b", udid: udid, deviceName: "n", error: "E", description: nil, detail: nil
            ).failureKind == .installFailed)
        #expect(
            DeviceError.launchRefused(bundleID: "a.b", udid: udid, reason: LaunchRefusal(reply: "x"), reply: "x")
                .failureKind
                == .launchRefused)
        #expect(
            DeviceError.debugserverUnavailable(udid: udid, deviceName: "n", osVersion: "17.0", call: nil).failureKind
                == .launchRefused)
        #expect(DeviceError.timedOut(operation: "x", udid: udid, seconds: 1).failureKind == .other)
    }

    @Test func installdTextReachesTheUserVerbatim() throws {
        let error = DeviceError.installFailed(
            step: .install, bundleID: "com.example.app", udid: udid, deviceName: "Test iPhone",
            error: "ApplicationVerificationFailed",
            description: "Failed to verify code signature of /private/var/installd/…/Sample.app : 0xe8008015",
            detail: 0xE800_8015)
        let text = try #require(error.errorDescription)
        #expect(text.contains("Failed to verify code signature of /private/var/installd/…/Sample.app : 0xe8008015"))
        #expect(text.contains("com.example.app") && text.contains("Test iPhone") && text.contains(udid))
        #expect(text.contains("ApplicationVerificationFailed"))
    }

    /// debugserver's own failure to take the task, else FrontBoard's refusal by the mapping process control uses:
    /// the code's name alone (`ESecurity`, native-run issue 68), a RequestDenied reason, or the reason's words.
    @Test(arguments: [
        ("failed to get the task for process 123", nil),
        ("process launch failed: security policy does not allow", nil),
        ("Security", ProcessControlRefusal.Cause.security),
        ("NotFound", .notInstalled),
        ("The request was denied by service delegate (SBMainWorkspace) for reason: Locked", .locked),
        (
            "The request was denied by service delegate (SBMainWorkspace) for reason: Security (\"Unable to launch "
                + "a.b because it has an invalid code signature, inadequate entitlements or its profile has not been "
                + "explicitly trusted by the user\").", .security
        ),
        ("Unable to launch a.b because the device was not, or could not be, unlocked.", .locked),
        ("no such file", .other),
    ])
    func launchRefusalsAreClassified(reply: String, expected: ProcessControlRefusal.Cause?) {
        switch LaunchRefusal(reply: reply) {
        case .notSignedForDevelopment: #expect(expected == nil)
        case .phone(let refusal): #expect(refusal.cause == expected)
        }
    }

    /// A Security refusal through debugserver says what process control's says: the cause, the phone's words, the fix.
    @Test func aSecurityRefusalThroughDebugserverNamesTheCauseAndTheFix() throws {
        let error = DeviceError.launchRefused(
            bundleID: "a.b", udid: udid, reason: LaunchRefusal(reply: "Security"), reply: "Security")
        let text = try #require(error.errorDescription)
        #expect(text.contains("Device \(udid) refused to launch a.b through debugserver"), "\(text)")
        #expect(text.contains("code signature is invalid") && text.contains("the phone said: Security"), "\(text)")
        #expect(text.contains("Settings > General > VPN & Device Management"), "\(text)")
        #expect(!text.contains("get-task-allow"), "\(text)")
    }

    @Test func connectionFailuresAreRecognised() {
        #expect(LibraryCall.lockdown(-8, operation: "x").isConnectionFailure)
        #expect(LibraryCall.debugserver(-256, operation: "x").isConnectionFailure)
        #expect(!LibraryCall.lockdown(-17, operation: "x").isConnectionFailure)
        #expect(!LibraryCall.afc(8, operation: "x").isConnectionFailure)
    }
}

/// Which failures may mean the phone was unplugged (then checked against usbmuxd's list): an unplug can
/// land between any two steps of a launch, also where our own clients report the break.
@Suite struct DeviceLossClassificationTests {
    @Test func transportSymptomsMayBeALossAppAnswersNever() {
        let udid = "00008030-001A2D4E0C38802E"
        #expect(
            DeviceSession.mayBeLoss(
                .protocolError(operation: "launch of a.b", udid: udid, detail: "closed the connection before replying"))
        )
        #expect(
            DeviceSession.mayBeLoss(.timedOut(operation: "TLS handshake with debugserver", udid: udid, seconds: 10)))
        #expect(!DeviceSession.mayBeLoss(.appNotInstalled(bundleID: "a.b", udid: udid)))
        #expect(
            !DeviceSession.mayBeLoss(
                .installFailed(
                    step: .install, bundleID: "a.b", udid: udid, deviceName: "x", error: "APIInternalError",
                    description: nil, detail: nil)))
    }
}
