import Foundation
import LaunchBench

/// Everything talking to an iPhone through libimobiledevice can fail with. Each message says what
/// failed, on which device, and what to do; the raw C code and the operation stay attached.
package enum DeviceError: Error, Sendable, Hashable {
    /// usbmuxd could not be reached at `address` (`nil`: the system daemon's socket).
    case usbmuxdUnreachable(address: USBMuxAddress?, call: LibraryCall?)
    /// No attached device has this UDID; `attached` lists the ones that are (maybe none).
    case deviceNotFound(udid: String, attached: [String])
    /// The device is not paired with this computer, or the user has not tapped Trust.
    case notTrusted(udid: String, call: LibraryCall)
    /// The device is locked with a passcode.
    case passcodeLocked(udid: String, call: LibraryCall)
    /// The device went away (unplugged, rebooted) during `operation`.
    case deviceLost(udid: String, operation: String)
    /// Lockdown refused to start a service.
    case serviceUnavailable(service: String, udid: String, call: LibraryCall)
    /// Lockdown offers no debugserver: the app cannot be launched (iOS 17+, or no developer disk image, which
    /// Developer Mode off on iOS 16 also means).
    case debugserverUnavailable(
        udid: String, deviceName: String, osVersion: String, developerModeOff: Bool = false, call: LibraryCall?)
    /// The bundle id is not installed on the device.
    case appNotInstalled(bundleID: String, udid: String)
    /// debugserver would not launch the app (`qLaunchSuccess` answered `E…`).
    case launchRefused(bundleID: String, udid: String, reason: LaunchRefusal, reply: String)
    /// installd rejected the install or uninstall; `description` is installd's text, verbatim.
    case installFailed(
        step: InstallStep, bundleID: String, udid: String, deviceName: String, error: String, description: String?,
        detail: UInt64?)
    /// Copying the app to the device's staging folder failed.
    case uploadFailed(path: String, udid: String, call: LibraryCall)
    /// `operation` did not finish in time.
    case timedOut(operation: String, udid: String, seconds: Double)
    /// The device answered something the protocol does not allow.
    case protocolError(operation: String, udid: String, detail: String)
    /// Any other failed call, with its raw code.
    case failed(udid: String?, call: LibraryCall)
}

/// Which installd command failed.
package enum InstallStep: String, Sendable, Hashable {
    case install
    case uninstall
}

/// Why debugserver refused to launch an app, read from its `qLaunchSuccess` reply.
package enum LaunchRefusal: Sendable, Hashable {
    /// debugserver could not take the app's task: it is not signed for development (no `get-task-allow`).
    case notSignedForDevelopment
    /// What the phone said otherwise: FrontBoard's refusal (not installed, Security, locked) or anything else,
    /// classified by the same mapping as a refusal through process control, so both give the same cause and fix.
    case phone(ProcessControlRefusal)

    /// Classifies debugserver's error text: FrontBoard's causes first (its Security reason names a "code
    /// signature" and "entitlements" too), then debugserver's own failure to get the task.
    init(reply: String) {
        let phone = ProcessControlRefusal(debugserverReply: reply)
        let text = reply.lowercased()
        if phone.cause == .other,
            ["task for process", "get-task-allow", "security policy", "not permitted", "codesign"].contains(
                where: text.contains)
        {
            self = .notSignedForDevelopment
        } else {
            self = .phone(phone)
        }
    }
}

extension DeviceError: DriverError {
    /// How the runner records a launch that failed this way.
    package var failureKind: DriverFailureKind {
        switch self {
        // A device that is not (or no longer) attached cannot be measured: the runner records device-lost.
        case .deviceLost, .deviceNotFound: return .deviceLost
        case .installFailed, .uploadFailed: return .installFailed
        case .launchRefused, .debugserverUnavailable, .appNotInstalled: return .launchRefused
        default: return .other
        }
    }
}

extension DeviceError {
    /// The C call behind this error, when there is one.
    package var call: LibraryCall? {
        switch self {
        case .usbmuxdUnreachable(_, let call): return call
        case .notTrusted(_, let call), .passcodeLocked(_, let call), .serviceUnavailable(_, _, let call),
            .uploadFailed(_, _, let call), .failed(_, let call):
            return call
        case .debugserverUnavailable(_, _, _, _, let call): return call
        default: return nil
        }
    }
}

extension DeviceError: LocalizedError {
    package var errorDescription: String? {
        switch self {
        case .usbmuxdUnreachable(let address, let call):
            return Self.unreachableMessage(address: address) + Self.suffix(call)
        case .deviceNotFound(let udid, let attached):
            if attached.isEmpty {
                return "No device with UDID \(udid): no iPhone is attached. Connect it by USB, unlock it, "
                    + "tap Trust if asked, then run `launchbench devices` to check."
            }
            return "No device with UDID \(udid) is attached. Attached: \(attached.joined(separator: ", ")). "
                + "Pass one of these (see `launchbench devices`)."
        case .notTrusted(let udid, let call):
            return "Device \(udid) is not paired with this computer or does not trust it. Unlock it and tap Trust "
                + "(if no dialog appears, unplug and reconnect it; `idevicepair pair` also starts pairing)."
                + Self.suffix(call)
        case .passcodeLocked(let udid, let call):
            return "Device \(udid) is locked with a passcode. Unlock it (and keep it unlocked while benchmarking: "
                + "Settings > Display & Brightness > Auto-Lock > Never), then retry." + Self.suffix(call)
        case .deviceLost(let udid, let operation):
            return "Device \(udid) went away during \(operation) (unplugged, rebooted or usbmuxd restarted). "
                + "Reconnect it, check the cable, and retry."
        case .serviceUnavailable(let service, let udid, let call):
            return "Device \(udid) refused to start \(service). Unlock the device, make sure it trusts this computer, "
                + "and retry; if it persists, restart the device." + Self.suffix(call)
        case .debugserverUnavailable(let udid, let name, let osVersion, let developerModeOff, let call):
            return Self.debugserverMessage(
                udid: udid, name: name, osVersion: osVersion, developerModeOff: developerModeOff) + Self.suffix(call)
        case .appNotInstalled(let bundleID, let udid):
            return "\(bundleID) is not installed on device \(udid). Install it first (launchbench installs it "
                + "before cold launches), or check the bundle id."
        case .launchRefused(let bundleID, let udid, let reason, let reply):
            switch reason {
            case .notSignedForDevelopment:
                return "debugserver refused to launch \(bundleID) on device \(udid): \(reply). The app must be signed "
                    + "for development (a development provisioning profile, get-task-allow entitlement) for debugserver "
                    + "to launch it. Re-sign it with a development identity and a profile that includes this device."
            case .phone(let refusal):
                let message = refusal.message(device: "Device \(udid)", bundleID: bundleID, through: "debugserver")
                guard refusal.cause == .other else { return message }
                return message + " Check that the app runs when started by hand on the device, that it is signed for "
                    + "development, and that the device is unlocked."
            }
        case .installFailed(let step, let bundleID, let udid, let name, let error, let description, let detail):
            let verb = step == .install ? "Installing" : "Uninstalling"
            var text = "\(verb) \(bundleID) on \(name) (\(udid)) failed: \(error)"
            if let description, !description.isEmpty { text += ": \(description)" }
            if let detail { text += " (detail 0x\(String(detail & 0xFFFF_FFFF, radix: 16, uppercase: false)))" }
            return text
                + ". Check the app's signature and provisioning profile for this device, and the device's free space."
        case .uploadFailed(let path, let udid, let call):
            return "Copying \(path) to device \(udid) failed. Check the device's free space, unlock it, and retry."
                + Self.suffix(call)
        case .timedOut(let operation, let udid, let seconds):
            return "\(operation) on device \(udid) did not finish within \(Self.format(seconds)) s. "
                + "Check that the device is unlocked and responsive; restart it if it persists."
        case .protocolError(let operation, let udid, let detail):
            return "Device \(udid) answered \(operation) unexpectedly: \(detail). Restart the device and retry."
        case .failed(let udid, let call):
            let subject = udid.map { "on device \($0) " } ?? ""
            return
                "\(call.operation) failed \(subject)with \(call.text) (\(call.library.rawValue) error \(call.code)). "
                + "Unlock the device, reconnect it and retry; if it persists, restart the device."
        }
    }

    private static func suffix(_ call: LibraryCall?) -> String {
        guard let call else { return "" }
        return " [\(call)]"
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(format: "%g", seconds)
    }

    static func unreachableMessage(address: USBMuxAddress?) -> String {
        switch address {
        case nil:
            #if os(macOS)
                return "Cannot reach usbmuxd at \(USBMuxAddress.systemSocketPath). usbmuxd ships with macOS and starts "
                    + "on demand: reconnect the iPhone, or restart the Mac if it persists. To use a device host elsewhere, "
                    + "pass --usbmuxd host:port."
            #else
                return "Cannot reach usbmuxd at \(USBMuxAddress.systemSocketPath): the usbmuxd daemon is not running. "
                    + "Start it with `sudo systemctl start usbmuxd` (install it with `sudo apt-get install usbmuxd` if "
                    + "missing), or pass --usbmuxd UNIX:/path or host:port to use another one."
            #endif
        case .unix(let path)?:
            return "Cannot reach usbmuxd at UNIX:\(path) (from --usbmuxd or USBMUXD_SOCKET_ADDRESS): nothing is "
                + "listening on that socket. Start the emulator there (`launchbench emulator --socket \(path)`) or "
                + "fix the address; without the option the system usbmuxd at \(USBMuxAddress.systemSocketPath) is used."
        case .tcp(let host, let port)?:
            return "Cannot reach usbmuxd at \(USBMuxAddress.tcp(host: host, port: port)) (from --usbmuxd or "
                + "USBMUXD_SOCKET_ADDRESS). Check that the device host is up, that usbmuxd is exposed on port \(port) "
                + "there, and that no firewall blocks it."
        }
    }

    static func debugserverMessage(udid: String, name: String, osVersion: String, developerModeOff: Bool) -> String {
        let device = "\(name) (\(udid), iOS \(osVersion))"
        if let version = OSVersion(osVersion), version.major >= 17 {
            return "Cannot launch apps on \(device): from iOS 17 on, lockdown no longer offers debugserver, so "
                + "libimobiledevice (and launchbench) cannot launch apps there. Benchmark on a device with iOS 16 or "
                + "older, or measure this device with the app's own launchbench markers using Xcode or "
                + "`xcrun devicectl device process launch`."
        }
        if developerModeOff {
            // Without Developer Mode the image cannot be mounted (pymobiledevice3's `raise_if_cannot_mount`).
            let fix = DeveloperReadiness.advice(udid: udid, developerMode: .notReady, diskImage: .ready, modern: false)
            return "debugserver is not available on \(device): Developer Mode is off, so the Developer Disk Image "
                + "that holds debugserver cannot be mounted. " + fix.joined(separator: " ")
                + " Then mount the image (`ideviceimagemounter` with the files from Xcode's DeviceSupport/\(osVersion) "
                + "folder, or attach the device to Xcode once) and retry."
        }
        return "debugserver is not available on \(device): the Developer Disk Image is not mounted. Mount it "
            + "(`ideviceimagemounter DeveloperDiskImage.dmg DeveloperDiskImage.dmg.signature` with the files from "
            + "Xcode's DeviceSupport/\(osVersion) folder, or attach the device to Xcode once), then retry."
    }
}
