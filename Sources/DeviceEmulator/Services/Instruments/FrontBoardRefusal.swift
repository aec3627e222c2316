import Foundation

/// The error FrontBoard answers a refused open with, as processcontrol receives it from
/// `-[FBSOpenApplicationService openApplication:withOptions:completion:]`: an
/// `FBSOpenApplicationServiceErrorDomain` error ("The request to open "X" failed.", its code named in
/// `BSErrorCodeDescription`) with FrontBoard's own `FBSOpenApplicationErrorDomain` error (NotFound, Security,
/// Locked, and the reason) under `NSUnderlyingError`. processcontrol wraps it once more
/// (``DeviceProcessControlError``).
///
/// Sources. NotFound, all three levels, is a phone's reply pasted in assistd/go-ios
/// `wdbd/ioskit/services/dvt/instruments/process_control.go` (commit 00356b93): the service error is code 4
/// `InvalidRequest` with `FBSOpenApplicationRequestID` and no reason, the inner one code 4 `NotFound`, "Application
/// info provider (FBSApplicationLibrary) returned nil for "X"". Security and Locked follow FrontBoard's code, not a
/// capture: `FBSystemService.mm` (iOS 26.1, decompiled, EthanArbuckle/iPhone18-3_26.1_23B85_Restore) answers a
/// request its delegate denied with service code 1 and "The request was denied by service delegate (%@) for
/// reason: %@ (%@", the inner error's code name and reason, and the inner error underneath; SpringBoard's log of a
/// Security refusal names `FBSOpenApplicationErrorDomain; code: 3 (Security)` and the reason (appium/appium issues
/// 14339, 6230). Locked's code 7 is believed, not seen (Documentation/RealPhoneStatus.md).
enum FrontBoardRefusal {
    static let serviceDomain = "FBSOpenApplicationServiceErrorDomain"
    static let domain = "FBSOpenApplicationErrorDomain"

    /// FrontBoard does not know the bundle id.
    static func notFound(_ bundleID: String) -> ArchivedError {
        let inner = error(
            code: 4, name: "NotFound",
            reason: "Application info provider (FBSApplicationLibrary) returned nil for \"\(bundleID)\"")
        return service(code: 4, name: "InvalidRequest", bundleID: bundleID, reason: nil, underlying: inner)
    }

    /// An invalid code signature, inadequate entitlements or a developer profile the user did not trust: one reason
    /// for the three.
    static func security(_ bundleID: String) -> ArchivedError {
        denied(
            bundleID,
            error(
                code: 3, name: "Security",
                reason: "Unable to launch \(bundleID) because it has an invalid code signature, inadequate "
                    + "entitlements or its profile has not been explicitly trusted by the user."))
    }

    /// The phone is locked.
    static func locked(_ bundleID: String) -> ArchivedError {
        denied(
            bundleID,
            error(
                code: 7, name: "Locked",
                reason: "Unable to launch \(bundleID) because the device was not, or could not be, unlocked."))
    }

    /// SpringBoard, FrontBoard's delegate, denied the open (service code 1, `FBSystemService.mm`).
    private static func denied(_ bundleID: String, _ inner: ArchivedError) -> ArchivedError {
        let name = inner.userInfo["BSErrorCodeDescription"] ?? ""
        let reason = (inner.userInfo[NSLocalizedFailureReasonErrorKey] ?? "").trimmingCharacters(
            in: .punctuationCharacters)
        return service(
            code: 1, name: "RequestDenied", bundleID: bundleID,
            reason: "The request was denied by service delegate (SBMainWorkspace) for reason: \(name) (\"\(reason)\").",
            underlying: inner)
    }

    private static func service(code: Int, name: String, bundleID: String, reason: String?, underlying: ArchivedError)
        -> ArchivedError
    {
        var info = [
            NSLocalizedDescriptionKey: "The request to open \"\(bundleID)\" failed.", "BSErrorCodeDescription": name,
            "FBSOpenApplicationRequestID": "0x\(String(UInt16.random(in: 0x1000...0xFFFF), radix: 16))",
        ]
        info[NSLocalizedFailureReasonErrorKey] = reason
        return ArchivedError(domain: serviceDomain, code: code, userInfo: info, underlying: underlying)
    }

    private static func error(code: Int, name: String, reason: String) -> ArchivedError {
        ArchivedError(
            domain: domain, code: code,
            userInfo: ["BSErrorCodeDescription": name, NSLocalizedFailureReasonErrorKey: reason])
    }
}
