import Foundation
import LaunchBench

/// Failures of the engines that run as other programs (pymobiledevice3, devicectl). Each names the
/// program, what it said, where its full log is, and the fix.
package enum EngineError: Error, LocalizedError, DriverError, Sendable {
    /// The engine's program is not there (or not runnable).
    case missing(engine: LaunchEngine, path: String, install: String)
    /// The sidecar exited before it listened.
    case sidecarExited(udid: String, status: Int32, log: String, logPath: String)
    /// The sidecar did not listen within the time allowed; it was stopped.
    case sidecarHung(udid: String, seconds: Double, log: String, logPath: String)
    /// A launch through the sidecar failed; `detail` is the launch error, `log` what the sidecar printed
    /// meanwhile; `tunnelled` when it forwards over an iOS 17+ tunnel.
    case launchThroughSidecar(
        udid: String, detail: String, log: String, logPath: String, kind: DriverFailureKind, tunnelled: Bool = false)
    /// devicectl failed; `message` is its own error text.
    case devicectl(operation: String, udid: String, message: String, exitStatus: Int32?, kind: DriverFailureKind)

    package var failureKind: DriverFailureKind {
        switch self {
        case .missing, .sidecarExited, .sidecarHung: return .launchRefused
        case .launchThroughSidecar(_, _, _, _, let kind, _), .devicectl(_, _, _, _, let kind): return kind
        }
    }

    package var errorDescription: String? {
        switch self {
        case .missing(let engine, let path, let install):
            return "The \(engine.rawValue) engine's program \(path) was not found or cannot be run. Install it with "
                + "\(install)."
        case .sidecarExited(let udid, let status, let log, let logPath):
            return "pymobiledevice3 debugserver start-server for \(udid) exited with status \(status) before it "
                + "listened\(Self.quote(log)). Full log: \(logPath).\(Self.hint(log, udid: udid))"
        case .sidecarHung(let udid, let seconds, let log, let logPath):
            return "pymobiledevice3 debugserver start-server for \(udid) did not listen within "
                + "\(String(format: "%g", seconds)) s and was stopped"
                + "\(Self.quote(log)). Full log: \(logPath).\(Self.hint(log, udid: udid))"
        case .launchThroughSidecar(let udid, let detail, let log, let logPath, _, let tunnelled):
            let quoted =
                log.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? "; it said nothing" : Self.quote(log)
            var hint = Self.hint(log, udid: udid)
            // pymobiledevice3 logs each forwarded connection once it reached debugproxy; none means it never did.
            if hint.isEmpty, tunnelled, detail.contains("before replying"),
                !log.contains("connection established from")
            {
                hint = Self.tunnelledRefusalHint(udid: udid)
            }
            return "\(detail) [pymobiledevice3 forwarder for \(udid)\(quoted); full log: \(logPath)]" + hint
        case .devicectl(let operation, let udid, let message, let status, _):
            let code = status.map { " (exit status \($0))" } ?? ""
            return "xcrun devicectl \(operation) failed on \(udid)\(code): \(message)"
                + Self.devicectlHint(message, udid: udid)
        }
    }

    private static func quote(_ log: String) -> String {
        let trimmed = log.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? "" : "; it said: \"\(trimmed)\""
    }

    /// The fix for what pymobiledevice3 says most often.
    static func hint(_ log: String, udid: String) -> String {
        if log.contains("DeveloperDiskImage") || log.contains("mounter") {
            return " Mount the Developer Disk Image: `pymobiledevice3 mounter auto-mount --udid \(udid)` (needs "
                + "the network), or open Xcode with the device attached."
        }
        if log.localizedCaseInsensitiveContains("developer mode") {
            return " Turn on Developer Mode: Settings > Privacy & Security > Developer Mode, or `pymobiledevice3 amfi "
                + "enable-developer-mode --udid \(udid)`."
        }
        if log.contains("CoreDeviceProxy") || log.contains("InvalidServiceError") {
            return " The phone refused the tunnel service (CoreDeviceProxy): unlock it, tap Trust if asked, turn on "
                + "Developer Mode, and check that it runs iOS 17.4 or later (earlier iOS 17 needs the root "
                + "tunneld: --tunneld)."
        }
        if log.localizedCaseInsensitiveContains("tunneld") || log.contains("UserspaceTunnelUnavailable") {
            return " iOS 17.0–17.3.1 need the root tunnel: run `sudo pymobiledevice3 remote tunneld` in another "
                + "terminal, or point launchbench at a running one with --tunneld PORT (or HOST:PORT)."
        }
        return ""
    }

    /// A forwarder whose tunnel is up but closes each connection before debugserver answers: the phone's
    /// RemoteServiceDiscovery lists no debugproxy, which is what an unmounted Developer Disk Image looks
    /// like (pymobiledevice3 prints nothing then).
    static func tunnelledRefusalHint(udid: String) -> String {
        " The tunnel is up but the phone offers no debugproxy: mount the Developer Disk Image with "
            + "`pymobiledevice3 mounter auto-mount --udid \(udid)` (needs the network), or open Xcode with the device "
            + "attached, and check that Developer Mode is on."
    }

    static func devicectlHint(_ message: String, udid: String) -> String {
        let text = message.lowercased()
        if text.contains("locked") { return " Unlock the device and keep it unlocked while measuring." }
        if text.contains("disk image") || text.contains("ddi") {
            return " Open Xcode with the device attached once, so it mounts the Developer Disk Image."
        }
        if text.contains("developer mode") {
            return " Turn on Developer Mode: Settings > Privacy & Security > Developer Mode."
        }
        if text.contains("not installed") || text.contains("no application") {
            return " Install the app first (drop --cold none, or `xcrun devicectl device install app`)."
        }
        return ""
    }
}
