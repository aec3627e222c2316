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

    /// A phone's NotFound reply as pasted in assistd/go-ios `process_control.go`: three levels deep.
    static let nestedNotFound: [ProcessControlRefusal.Level] = [
        .init(
            domain: "com.apple.dt.deviceprocesscontrolservice", code: 2,
            description: "Request to launch com.example.app failed.",
            reason: "The request to open \"com.example.app\" failed. : Failed to launch process with bundle identifier "
                + "'com.example.app'."),
        .init(
            domain: "FBSOpenApplicationServiceErrorDomain", code: 4, codeName: "InvalidRequest",
            description: "The request to open \"com.example.app\" failed."),
        .init(
            domain: "FBSOpenApplicationErrorDomain", code: 4, codeName: "NotFound",
            reason: "Application info provider (FBSApplicationLibrary) returned nil for \"com.example.app\""),
    ]

    @Test func aNestedRefusalIsClassifiedOnTheDeepestFrontBoardErrorAndQuotesBothEnds() {
        let refusal = ProcessControlRefusal(chain: Self.nestedNotFound)
        #expect(refusal.cause == .notInstalled)
        let message = refusal.message(device: "P", bundleID: "com.example.app")
        #expect(
            message.contains(
                "(the phone said: com.apple.dt.deviceprocesscontrolservice code 2: Request to launch com.example.app "
                    + "failed. The request to open"), "\(message)")
        #expect(
            message.contains(
                " … FBSOpenApplicationErrorDomain code 4 NotFound: Application info provider (FBSApplicationLibrary) "
                    + "returned nil for \"com.example.app\")"), "\(message)")
        // Read from the outer level alone, as launchbench once did, it named no cause.
        #expect(ProcessControlRefusal(chain: Array(Self.nestedNotFound.prefix(1))).cause == .other)
    }

    @Test func theServicesOwnReasonsEachHaveACauseAndWhetherTheyClear() {
        let service = "com.apple.dt.deviceprocesscontrolservice"
        let cases: [(ProcessControlRefusal.Level, ProcessControlRefusal.Cause)] = [
            (
                .init(
                    domain: service, code: 2, description: "Request to launch x failed.",
                    reason: "Device is currently locked. Please unlock the device and try again."), .locked
            ),
            (
                .init(
                    domain: service, code: 2, description: "Request to launch x failed.",
                    reason: "Device busy or Instruments is trying to launch several targets, and one of them is a "
                        + "foreground app."), .busy
            ),
            (
                .init(
                    domain: service, code: 2, description: "Executable 'private' is already running as process 812.",
                    reason: "killExisting requested, but found the existing PID."), .alreadyRunning
            ),
            (
                .init(
                    domain: service, code: 16,
                    description: "Failed to terminate existing instance (812) of bundle ID 'x'"),
                .couldNotTerminate
            ),
        ]
        for (level, cause) in cases {
            let refusal = ProcessControlRefusal(chain: [level])
            #expect(refusal.cause == cause, "\(level)")
            #expect(refusal.cause.isTransient, "\(level)")
            let message = refusal.message(device: "P", bundleID: "x")
            #expect(message.hasPrefix("P refused to launch x through process control: "), "\(message)")
        }
        #expect(
            !ProcessControlRefusal.Cause.notInstalled.isTransient && !ProcessControlRefusal.Cause.security.isTransient)
        // FrontBoard's Locked under a RequestDenied, as FBSystemService builds it.
        let locked = ProcessControlRefusal(chain: [
            .init(domain: service, code: 2, description: "Request to launch x failed."),
            .init(
                domain: "FBSOpenApplicationServiceErrorDomain", code: 1, codeName: "RequestDenied",
                reason: "The request was denied by service delegate (SBMainWorkspace) for reason: Locked (\"…\")."),
            .init(domain: "FBSOpenApplicationErrorDomain", code: 7, codeName: "Locked"),
        ])
        #expect(locked.cause == .locked)
    }
}
