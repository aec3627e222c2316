import Testing

@testable import LaunchBench

/// The phone's NSError for a refused process-control launch, named: the cause, the phone's words and the fix.
@Suite struct ProcessControlRefusalTests {
    static let securityReason =
        "Unable to launch com.example.app because it has an invalid code signature, inadequate entitlements or its "
        + "profile has not been explicitly trusted by the user."

    @Test func securityNamesTheSignatureAndTheUntrustedProfileWithBothFixes() {
        let refusal = ProcessControlRefusal(
            domain: "FBSOpenApplicationErrorDomain", code: 3, codeName: "Security", reason: Self.securityReason)
        #expect(refusal.cause == .security)
        let message = refusal.message(device: "Ana's iPhone", bundleID: "com.example.app")
        #expect(message.hasPrefix("Ana's iPhone refused to launch com.example.app through process control"))
        #expect(message.contains("code signature is invalid") && message.contains("not trusted on the phone"))
        #expect(message.contains("(the phone said: FBSOpenApplicationErrorDomain code 3 Security: Unable to launch"))
        #expect(message.contains("Settings > General > VPN & Device Management") && message.contains("re-sign"))
    }

    @Test func eachCauseIsReadFromTheCodeItsNameOrItsReason() {
        let domain = "FBSOpenApplicationErrorDomain"
        #expect(ProcessControlRefusal(domain: domain, code: 4, codeName: nil, reason: nil).cause == .notInstalled)
        #expect(
            ProcessControlRefusal(
                domain: nil, code: nil, codeName: "NotFound",
                reason: "Application info provider (FBSApplicationLibrary) returned nil for \"x\""
            ).cause == .notInstalled)
        #expect(ProcessControlRefusal(domain: domain, code: 3, codeName: nil, reason: nil).cause == .security)
        #expect(
            ProcessControlRefusal(domain: nil, code: nil, codeName: nil, reason: Self.securityReason).cause == .security
        )
        #expect(
            ProcessControlRefusal(
                domain: domain, code: 7, codeName: "Locked",
                reason: "Unable to launch x because the device was not, or could not be, unlocked."
            ).cause == .locked)
        // Another domain's code 3 is not FrontBoard's Security.
        let other = ProcessControlRefusal(domain: "DTXMessage", code: 3, codeName: nil, reason: "something else")
        #expect(other.cause == .other)
        #expect(
            other.message(device: "P", bundleID: "x")
                == "P refused to launch x through process control (the phone said: DTXMessage code 3: something else).")
    }
}
