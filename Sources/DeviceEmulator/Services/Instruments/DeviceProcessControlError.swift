import Foundation

/// The NSError processcontrol itself answers a refused launch with, domain `com.apple.dt.deviceprocesscontrolservice`,
/// as `-[DTSpringBoardProcessControlService _launchSuspendedProcessWithBundleIdentifier:…]` builds it
/// (`DTSpringBoardProcessControlService.mm`, iOS 26.1, decompiled, EthanArbuckle/iPhone18-3_26.1_23B85_Restore):
/// code 2 "Request to launch X failed." with a reason of its own and FrontBoard's error under `NSUnderlyingError`;
/// code 2 "Executable 'X' is already running as process N." when the instance it was told to kill is still the one
/// running; code 16 "Failed to terminate existing instance (N) of bundle ID 'X'". The nested shape is a phone's
/// (assistd/go-ios `process_control.go`, quoted in ``FrontBoardRefusal``); go-ios retries code 2 (commit 77e57ca,
/// PR #763: a phone "intermittently rejects an app launch … when the device is momentarily not ready").
enum DeviceProcessControlError {
    static let domain = "com.apple.dt.deviceprocesscontrolservice"

    /// FrontBoard refused the open: code 2, the reason chosen by FrontBoard's top code as the service chooses it
    /// (6 busy, 5 background, 7 locked; else FrontBoard's description and "Failed to launch process …").
    static func launchFailed(_ bundleID: String, frontBoard: ArchivedError) -> ArchivedError {
        let reason =
            switch frontBoard.code {
            case 6:
                "Device busy or Instruments is trying to launch several targets, and one of them is a foreground app."
            case 5:
                "Background launch requested, but this app cannot run in the background (see "
                    + "UIApplicationExitsOnSuspend or 'Background Modes' in Xcode)."
            case 7: "Device is currently locked. Please unlock the device and try again."
            default:
                "\(frontBoard.localizedDescription) : Failed to launch process with bundle identifier '\(bundleID)'."
            }
        return ArchivedError(
            domain: domain, code: 2,
            userInfo: [
                NSLocalizedDescriptionKey: "Request to launch \(bundleID) failed.",
                NSLocalizedFailureReasonErrorKey: reason,
            ], underlying: frontBoard)
    }

    /// The instance `KillExisting` was to end still runs after the service's own retries (it waits 0.5 s up to
    /// eight times before giving up): code 2, no underlying error. `executable` is the last component of the
    /// device path the client sent, which the service quotes.
    static func alreadyRunning(executable: String, pid: Int) -> ArchivedError {
        ArchivedError(
            domain: domain, code: 2,
            userInfo: [
                NSLocalizedDescriptionKey: "Executable '\(executable)' is already running as process \(pid).",
                NSLocalizedFailureReasonErrorKey: "killExisting requested, but found the existing PID.",
            ])
    }
}
