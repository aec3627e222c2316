/// Why the phone refused a launch, read from the NSError of process control's ERROR reply and the errors nested
/// under it (`NSUnderlyingError`). A phone answers with processcontrol's own error outside,
/// `com.apple.dt.deviceprocesscontrolservice` code 2 "Request to launch X failed." and a reason, and FrontBoard's
/// errors one or two levels down: `FBSOpenApplicationServiceErrorDomain` ("The request to open "X" failed."), and
/// under it `FBSOpenApplicationErrorDomain` with the code's name (`BSErrorCodeDescription`: NotFound, Security,
/// Locked) and a reason (a phone's NotFound reply pasted in assistd/go-ios `process_control.go`; the service's own
/// reasons and codes as `DTSpringBoardProcessControlService.mm`, iOS 26.1 decompiled, builds them; go-ios retries
/// code 2, commit 77e57ca, PR #763). Classified on the deepest FrontBoard error, then on the service's own reasons;
/// what is seen from phones and what is inferred is in Documentation/RealPhoneStatus.md.
package struct ProcessControlRefusal: Sendable, Hashable {
    package enum Cause: String, Sendable {
        /// FrontBoard does not know the bundle id: code 4, `NotFound`, "Application info provider
        /// (FBSApplicationLibrary) returned nil for …" (a phone's reply in assistd/go-ios `process_control.go`;
        /// pymobiledevice3's printout in fritzlb/iOS17-JIT-WIN#72).
        case notInstalled
        /// Code 3, `Security`: "Unable to launch … because it has an invalid code signature, inadequate
        /// entitlements or its profile has not been explicitly trusted by the user" (SpringBoard's log in
        /// appium/appium#14339 and #6230). The phone gives one reason for all three.
        case security
        /// The phone is locked: FrontBoard's `Locked` (7), "… because the device was not, or could not be,
        /// unlocked", or the service's "Device is currently locked. Please unlock the device and try again."
        case locked
        /// The service's "Device busy or Instruments is trying to launch several targets, and one of them is a
        /// foreground app." (FrontBoard's code 6, after the service waited 0.5 s up to eight times).
        case busy
        /// The instance `KillExisting` was to end still runs: code 2 "Executable 'X' is already running as
        /// process N." (the last launch's instance still terminating).
        case alreadyRunning
        /// Code 16 "Failed to terminate existing instance (N) of bundle ID 'X'".
        case couldNotTerminate
        /// Anything else: quoted as the phone said it.
        case other

        /// A refusal that clears on its own within moments (go-ios 77e57ca: "screen locked, a prior instance still
        /// terminating, FrontBoard not yet up"): worth trying the launch again.
        package var isTransient: Bool {
            switch self {
            case .locked, .busy, .alreadyRunning, .couldNotTerminate: true
            case .notInstalled, .security, .other: false
            }
        }
    }

    /// One NSError of the chain, as sent.
    package struct Level: Sendable, Hashable {
        package var domain: String?
        package var code: Int?
        /// `BSErrorCodeDescription`.
        package var codeName: String?
        /// `NSLocalizedDescription`.
        package var description: String?
        /// `NSLocalizedFailureReason`.
        package var reason: String?

        package init(
            domain: String? = nil, code: Int? = nil, codeName: String? = nil, description: String? = nil,
            reason: String? = nil
        ) {
            self.domain = domain
            self.code = code
            self.codeName = codeName
            self.description = description
            self.reason = reason
        }

        /// Its domain, code, code name, description and reason, as sent.
        var said: String {
            var head = [domain, code.map { "code \($0)" }, codeName].compactMap { $0 }.joined(separator: " ")
            let words = [description, reason].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
            if !words.isEmpty { head += head.isEmpty ? words : ": " + words }
            return head
        }
    }

    package var cause: Cause
    /// The phone's words: the outermost error and, when there is one, the deepest, as sent.
    package var phoneSaid: String

    /// FrontBoard's error domain for a refused open, and processcontrol's own.
    static let frontBoardDomain = "FBSOpenApplicationErrorDomain"
    static let serviceDomain = "com.apple.dt.deviceprocesscontrolservice"

    /// - Parameter chain: the reply's NSError and those under it, outermost first.
    package init(chain: [Level]) {
        cause = Self.classify(chain)
        let said = [chain.first, chain.count > 1 ? chain.last : nil].compactMap { $0?.said }.filter { !$0.isEmpty }
        phoneSaid = said.joined(separator: " … ")
    }

    /// A refusal of one level (debugserver's, or an NSError with nothing under it).
    package init(domain: String?, code: Int?, codeName: String?, reason: String?) {
        self.init(chain: [Level(domain: domain, code: code, codeName: codeName, reason: reason)])
    }

    /// The deepest FrontBoard error decides; else processcontrol's own codes and reasons; else the words.
    private static func classify(_ chain: [Level]) -> Cause {
        if let frontBoard = chain.last(where: { $0.domain == frontBoardDomain }),
            let cause = frontBoardCause(frontBoard.codeName ?? codeName(frontBoard.code))
        {
            return cause
        }
        for level in chain where level.domain == serviceDomain && level.code == 16 { return .couldNotTerminate }
        for level in chain.reversed() {
            let text = [level.description, level.reason].compactMap { $0 }.joined(separator: " ").lowercased()
            if let cause = frontBoardCause(level.codeName ?? deniedFor(level.reason)) { return cause }
            if text.contains("returned nil for") || text.contains("is not installed") { return .notInstalled }
            if text.contains("code signature") || text.contains("explicitly trusted") { return .security }
            if text.contains("could not be, unlocked") || text.contains("currently locked") { return .locked }
            if text.contains("device busy") { return .busy }
            if text.contains("is already running as process") { return .alreadyRunning }
            if text.contains("failed to terminate existing instance") { return .couldNotTerminate }
        }
        return .other
    }

    private static func frontBoardCause(_ name: String?) -> Cause? {
        switch name {
        case "NotFound": .notInstalled
        case "Security": .security
        case "Locked": .locked
        case "Busy": .busy
        default: nil
        }
    }

    /// FrontBoard's codes by name where a reply gives the number only (`FBSOpenApplicationErrorDomain`: 3 Security
    /// and 4 NotFound seen; 7 Locked believed).
    private static func codeName(_ code: Int?) -> String? {
        switch code {
        case 3: "Security"
        case 4: "NotFound"
        case 7: "Locked"
        default: nil
        }
    }

    /// The code's name in FrontBoard's RequestDenied reason, "The request was denied by service delegate
    /// (SBMainWorkspace) for reason: Security (…)" (`FBSOpenApplicationServiceErrorDomain` code 1 around the
    /// `FBSOpenApplicationErrorDomain` error: SpringBoard's log in appium/appium#14339; NotFound in flutter/flutter#9904).
    private static func deniedFor(_ reason: String?) -> String? {
        guard let reason, let range = reason.range(of: "for reason: ") else { return nil }
        let name = reason[range.upperBound...].prefix { $0.isLetter }
        return name.isEmpty ? nil : String(name)
    }

    /// FrontBoard's refusal as debugserver passes it on after `E` in its `qLaunchSuccess` reply: the NSError's
    /// localized description, or, when it has none, only the code's name (`SetFBSError` in LLVM's
    /// `MachProcess.mm`; `ESecurity` from a phone in ionic-team/native-run issue 68). A reply of one word is that
    /// name; anything longer is read as the reason. Classified by the same rules as process control's NSError.
    package init(debugserverReply reply: String) {
        let oneWord = !reply.isEmpty && reply.allSatisfy { $0.isLetter }
        self.init(domain: nil, code: nil, codeName: oneWord ? reply : nil, reason: oneWord ? nil : reply)
    }

    /// The user's error: the cause, the phone's words and the fix; `launcher` names the way the launch went
    /// ("process control", "debugserver"); `attempts` how often it was tried (after transient refusals).
    package func message(
        device: String, bundleID: String, through launcher: String = "process control", attempts: Int = 1
    ) -> String {
        let tried = attempts > 1 ? " (\(attempts) attempts)" : ""
        let opening = "\(device) refused to launch \(bundleID) through \(launcher)\(tried)"
        let quoted = phoneSaid.isEmpty ? "" : " (the phone said: \(phoneSaid))"
        switch cause {
        case .notInstalled:
            return "\(opening): the app is not installed\(quoted). Something removed it after launchbench "
                + "installed it, or its bundle id differs from the one installed: reinstall it and run again."
        case .security:
            return "\(opening): its code signature is invalid, its entitlements are inadequate, or its developer "
                + "profile is not trusted on the phone\(quoted). Trust the developer in Settings > General > VPN & "
                + "Device Management (needed once for a free or enterprise profile), or re-sign the app with a "
                + "development profile that includes this phone."
        case .locked:
            return "\(opening): the phone is locked\(quoted). Unlock it and keep it unlocked during the run "
                + "(Settings > Display & Brightness > Auto-Lock > Never)."
        case .busy:
            return "\(opening): the phone is busy launching another app in the foreground\(quoted). Close other "
                + "tools launching apps on it (Xcode, Instruments, another launchbench) and run again."
        case .alreadyRunning:
            return "\(opening): the app's previous instance was still running after it was told to end it\(quoted). "
                + "If the app takes long to terminate, raise --settle; else restart the phone."
        case .couldNotTerminate:
            return "\(opening): the phone could not end the app's previous instance\(quoted). Close the app on the "
                + "phone (or restart the phone) and run again."
        case .other:
            return "\(opening)\(quoted)."
        }
    }
}
