import Foundation
import LaunchBench

/// Why a device's kernel-trace session could not start or went away, with the fix.
package enum KdebugTapError: Error, LocalizedError, Sendable, Equatable {
    /// kperf is owned by another session: Instruments or Xcode is recording on the phone.
    case kperfLocked(udid: String, notice: String)
    /// pymobiledevice3 is missing from the helper's Python, or is not the pinned version.
    case version(message: String)
    /// The instruments service could not be reached.
    case connect(udid: String, message: String)
    /// The instruments service is refused and the phone says Developer Mode is off (iOS 16+).
    case developerModeOff(udid: String)
    /// The session ended during the run.
    case lost(udid: String, message: String)
    /// The phone sent a DTX message of type COMPRESSED (LZ4), which pymobiledevice3 refuses.
    case compressed(udid: String, message: String)
    /// The helper exited before the session ran; `log` is what it printed.
    case exited(udid: String, status: Int32, log: String, logPath: String)
    /// The session did not start in time; the helper was stopped.
    case hung(udid: String, seconds: Double, logPath: String)
    /// No Python found to run pymobiledevice3's API: `reason` says what the program is (`PythonInterpreter`).
    case noPython(executable: String, reason: String)
    /// The helper script could not be written.
    case cannotWriteScript(path: String, reason: String)

    package var errorDescription: String? {
        switch self {
        case .kperfLocked(let udid, let notice):
            return "\(udid) would not start a kernel trace (\"\(notice)\"): kperf belongs to another session, such as "
                + "an Instruments or Xcode recording on the phone. Stop that recording, then run again."
        case .version(let message):
            return "The kdebug tap cannot use pymobiledevice3: \(message). Install the pinned version with "
                + EngineChoice.pymobiledevice3Install + "."
        case .connect(let udid, let message):
            return "The instruments service of \(udid) could not be reached: \(message). kdebug is read from iOS 14 on "
                + "(the older service is untested) with the Developer Disk Image mounted (and on iOS 17+ a tunnel); `launchbench devices` shows what "
                + "the phone lacks."
        case .developerModeOff(let udid):
            return
                "The instruments service of \(udid) is refused because Developer Mode is off, so kdebug cannot be read "
                + "and process control cannot launch: turn it on in Settings > Privacy & Security > Developer Mode (or "
                + "`pymobiledevice3 amfi enable-developer-mode --udid \(udid)`), restart the phone, then mount the "
                + "Developer Disk Image (`pymobiledevice3 mounter auto-mount --udid \(udid)`)."
        case .lost(let udid, let message):
            return "The kernel trace of \(udid) ended: \(message)."
        case .compressed(let udid, let message):
            return "\(udid) sent its kernel trace as LZ4-compressed DTX messages, which pymobiledevice3 "
                + "cannot read (\(message)), so its pre-main cannot come from kdebug. Where dyld prints its "
                + "statistics (iOS 14 and earlier) use --premain dyld-statistics; otherwise report the phone's model "
                + "and iOS version."
        case .exited(let udid, let status, let log, let logPath):
            return "The kdebug tap for \(udid) exited with status \(status) before its session ran"
                + (log.isEmpty ? "" : ": \(log)") + ". Full log: \(logPath)."
        case .hung(let udid, let seconds, let logPath):
            return "The kdebug tap for \(udid) did not start its session within \(String(format: "%g", seconds)) s "
                + "and was stopped. Full log: \(logPath)."
        case .noPython(let executable, let reason):
            return "The kdebug tap runs on the Python of pymobiledevice3, and none was found for \(executable): "
                + "\(reason). Point \(Pymobiledevice3Locator.environmentVariable) at the Python-based pymobiledevice3 "
                + "it runs (e.g. a venv's bin/pymobiledevice3), or install it with "
                + EngineChoice.pymobiledevice3Install + "."
        case .cannotWriteScript(let path, let reason):
            return "The kdebug tap's script could not be written to \(path): \(reason). Free space in the temporary "
                + "folder (TMPDIR)."
        }
    }

    /// A fault of the phone or the host, not of the helper process: a restarted helper would meet it again
    /// (kperf held by another session, another pymobiledevice3, compressed messages, no Python, no script,
    /// Developer Mode off).
    var recursOnRestart: Bool {
        switch self {
        case .kperfLocked, .version, .compressed, .noPython, .cannotWriteScript, .developerModeOff: return true
        case .connect, .lost, .exited, .hung: return false
        }
    }

    /// The error a helper's `{"type": "error"}` line describes.
    static func reported(kind: String, message: String, udid: String) -> KdebugTapError {
        switch kind {
        case "kperf-locked": return .kperfLocked(udid: udid, notice: message)
        case "version": return .version(message: message)
        case "connect": return .connect(udid: udid, message: message)
        case "developer-mode": return .developerModeOff(udid: udid)
        case "compressed": return .compressed(udid: udid, message: message)
        default: return .lost(udid: udid, message: message)
        }
    }
}
