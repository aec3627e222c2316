/// The NSError a phone's processcontrol answers a launch FrontBoard refused with: FrontBoard's own
/// `FBSOpenApplicationErrorDomain` error, its code named in `BSErrorCodeDescription` and its reason in
/// `NSLocalizedFailureReason`, with no `NSLocalizedDescription`.
///
/// Sources: a processcontrol launch of an app a phone does not have, printed by pymobiledevice3 as the error's
/// user info — `{'BSErrorCodeDescription': 'NotFound', 'NSLocalizedFailureReason': 'Application info provider
/// (FBSApplicationLibrary) returned nil for "…"'}` (fritzlb/iOS17-JIT-WIN issue 72) — and the same error with its
/// domain and code, `FBSOpenApplicationErrorDomain Code=4`, reached through XCTest (AppiumTestDistribution/
/// appium-device-farm issue 1065). The Security refusal's code, name and reason are SpringBoard's own log of it
/// (`FBSOpenApplicationErrorDomain; code: 3 (Security)`, appium/appium issue 14339; "Security (3)", issue 6230),
/// sent here in the same shape (unverified through processcontrol itself). Locked's code 7 is believed, not seen.
enum FrontBoardRefusal {
    static let domain = "FBSOpenApplicationErrorDomain"

    /// FrontBoard does not know the bundle id.
    static func notFound(_ bundleID: String) -> ArchivedError {
        error(
            code: 4, name: "NotFound",
            reason: "Application info provider (FBSApplicationLibrary) returned nil for \"\(bundleID)\"")
    }

    /// An invalid code signature, inadequate entitlements or a developer profile the user did not trust: one reason
    /// for the three.
    static func security(_ bundleID: String) -> ArchivedError {
        error(
            code: 3, name: "Security",
            reason: "Unable to launch \(bundleID) because it has an invalid code signature, inadequate entitlements or "
                + "its profile has not been explicitly trusted by the user.")
    }

    /// The phone is locked.
    static func locked(_ bundleID: String) -> ArchivedError {
        error(
            code: 7, name: "Locked",
            reason: "Unable to launch \(bundleID) because the device was not, or could not be, unlocked.")
    }

    private static func error(code: Int, name: String, reason: String) -> ArchivedError {
        ArchivedError(
            domain: domain, code: code, userInfo: ["BSErrorCodeDescription": name, "NSLocalizedFailureReason": reason])
    }
}
