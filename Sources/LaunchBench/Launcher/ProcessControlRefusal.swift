/// Why the phone refused a process-control launch, read from the NSError of its ERROR reply: process control
/// hands the app to FrontBoard, whose `FBSOpenApplicationErrorDomain` error comes back with the code's name
/// (`BSErrorCodeDescription`) and a reason (`NSLocalizedFailureReason`). Seen from phones (cited beside each
/// case); what a phone replies for a refused launch through process control itself is confirmed only for
/// `NotFound` (Documentation/RealPhoneStatus.md).
package struct ProcessControlRefusal: Sendable, Hashable {
    package enum Cause: String, Sendable {
        /// FrontBoard does not know the bundle id: code 4, `NotFound`, "Application info provider
        /// (FBSApplicationLibrary) returned nil for …" (a processcontrol launch on a phone, pymobiledevice3's
        /// printout in fritzlb/iOS17-JIT-WIN#72; the same error through XCTest in appium-device-farm#1065).
        case notInstalled
        /// Code 3, `Security`: "Unable to launch … because it has an invalid code signature, inadequate
        /// entitlements or its profile has not been explicitly trusted by the user" (SpringBoard's log in
        /// appium/appium#14339 and #6230). The phone gives one reason for all three.
        case security
        /// The phone is locked: "… because the device was not, or could not be, unlocked" (`Locked`).
        case locked
        /// Anything else: quoted as the phone said it.
        case other
    }

    package var cause: Cause
    /// The phone's words: its domain, code, code name and reason, as sent.
    package var phoneSaid: String

    /// FrontBoard's error domain for a refused open.
    static let frontBoardDomain = "FBSOpenApplicationErrorDomain"

    package init(domain: String?, code: Int?, codeName: String?, reason: String?) {
        let text = (reason ?? "").lowercased()
        let frontBoard = domain == Self.frontBoardDomain
        let codeName = codeName ?? Self.deniedFor(reason)
        if codeName == "NotFound" || (frontBoard && code == 4) || text.contains("returned nil for")
            || text.contains("is not installed")
        {
            cause = .notInstalled
        } else if codeName == "Security" || (frontBoard && code == 3) || text.contains("code signature")
            || text.contains("explicitly trusted")
        {
            cause = .security
        } else if codeName == "Locked" || text.contains("could not be, unlocked") {
            cause = .locked
        } else {
            cause = .other
        }
        var said = [domain, code.map { "code \($0)" }, codeName].compactMap { $0 }.joined(separator: " ")
        if let reason, !reason.isEmpty { said += said.isEmpty ? reason : ": " + reason }
        phoneSaid = said
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
    /// ("process control", "debugserver").
    package func message(device: String, bundleID: String, through launcher: String = "process control") -> String {
        let opening = "\(device) refused to launch \(bundleID) through \(launcher)"
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
        case .other:
            return "\(opening)\(quoted)."
        }
    }
}
