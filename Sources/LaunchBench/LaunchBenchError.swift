import Foundation

/// Everything the core can fail with. Each message names the thing at fault and the fix.
package enum LaunchBenchError: Error, Sendable, Equatable {
    /// A path that should be an app is neither an `.app` folder nor an `.ipa`.
    case notAnApp(path: String, reason: String)
    /// A file or folder the command needs does not exist.
    case fileNotFound(path: String, what: String)
    /// A results folder or file could not be read.
    case unreadableResults(path: String, reason: String)
    /// Writing results failed (disk full, permissions…).
    case cannotWrite(path: String, reason: String)
    /// A results file could not be encoded (a value JSON cannot hold): nothing was written, and the disk is
    /// not at fault.
    case cannotEncode(path: String, reason: String)
    /// A folder launchbench writes to or runs helpers from is not private to this user (`PrivateFolder`).
    case unsafeFolder(path: String, reason: String)
    /// A file or folder launchbench would write through is unsafe to use (a link, another user's, a shared
    /// folder without the sticky bit); `fix` says what to do instead.
    case refusedPath(path: String, reason: String, fix: String)
    /// `--output` names a folder that holds other files, an earlier run (without `--overwrite`) or the baseline.
    case outputFolderInUse(path: String, reason: String)
    /// `--output` is, holds or lies inside the baseline the run is compared with (`relation` says which).
    case outputIsBaseline(path: String, relation: String, baseline: String)
    /// `--device` names a device that is not attached; `attached` lists the UDIDs that are.
    case deviceNotAttached(udid: String, attached: [String])
    /// Every selected device is being measured by another launchbench run (each entry names the device
    /// and who holds it).
    case devicesBusy([String])
    /// No device is attached at all.
    case noDevicesAttached
    /// A binary that should be an arm64 Mach-O (an app's executable or framework, a dSYM's companion file) is
    /// not one, or is truncated or inconsistent; `reason` names the field at fault.
    case badMachO(path: String, reason: String)
    /// Devices are attached, but none of those to measure could be read (restarting, unplugged).
    case noReadableDevice([UnreadableDevice])
}

extension LaunchBenchError {
    /// What an `EncodingError` says, for `cannotEncode`: the value and where it sits (`inf at
    /// deviceOutcomes.0.conditions.typical.battery_percent`).
    package static func encodingFailure(_ error: any Error) -> String {
        guard case EncodingError.invalidValue(let value, let context) = error else {
            return "the value could not be encoded (\(error.localizedDescription))"
        }
        let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        return "the value \(value)" + (path.isEmpty ? "" : " at \(path)")
    }
}

extension LaunchBenchError: LocalizedError {
    /// What went wrong and how to fix it, in one or two sentences.
    package var errorDescription: String? {
        switch self {
        case .notAnApp(let path, let reason):
            return
                "\(path) is not an iOS app: \(reason). Pass an .app folder or an .ipa file (Payload/<Name>.app inside a zip)."
        case .fileNotFound(let path, let what):
            return "\(what) not found at \(path). Check the path."
        case .unreadableResults(let path, let reason):
            return "Cannot read results at \(path): \(reason)."
        case .cannotWrite(let path, let reason):
            let reason = reason.hasSuffix(".") ? String(reason.dropLast()) : reason
            return "Cannot write \(path): \(reason). Check free disk space and permissions."
        case .unsafeFolder(let path, let reason):
            return "Will not use \(path): \(reason), and another user could plant code there that launchbench "
                + "would run as you. Remove it (rm -rf \(path)) and run again, or set TMPDIR to a folder only you "
                + "can write."
        case .cannotEncode(let path, let reason):
            return "Cannot write \(path): \(reason), which JSON cannot hold, so nothing was written (the disk is "
                + "not at fault). This is a launchbench bug: please report it with the command line and the run's "
                + "logs."
        case .refusedPath(let path, let reason, let fix):
            return "Will not use \(path): \(reason). \(fix)"
        case .outputFolderInUse(let path, let reason):
            return "Will not write results into \(path): \(reason). Pass --output with a new or empty folder, "
                + "or add --overwrite to replace an earlier run's results (only the files launchbench wrote are "
                + "removed)."
        case .outputIsBaseline(let path, let relation, let baseline):
            return "Will not write results into \(path): \(relation) the baseline being compared (--baseline "
                + "\(baseline)), which a run must never overwrite. Pass another --output folder."
        case .deviceNotAttached(let udid, let attached):
            let list = attached.isEmpty ? "no device is attached" : "attached: \(attached.joined(separator: ", "))"
            return "Device \(udid) is not attached (\(list)). Check the UDID with `launchbench devices`."
        case .devicesBusy(let devices):
            return "Every selected device is in use by another launchbench run: \(devices.joined(separator: "; ")). "
                + "Wait for that run to end (or stop it), or pick another device with --device."
        case .badMachO(let path, let reason):
            return "Cannot read \(path) as a Mach-O binary: \(reason). Pass the app's own arm64 build, or its dSYM "
                + "(<Name>.dSYM, or the file in its Contents/Resources/DWARF/)."
        case .noDevicesAttached:
            return "No device is attached. Connect an unlocked, paired iPhone (trust this computer), "
                + "or try `launchbench demo` to run against an emulated lab."
        case .noReadableDevice(let devices):
            let list = devices.map { "\($0.udid) (\($0.reason))" }.joined(separator: "; ")
            return "No device could be read: \(list). A device that is restarting answers again once it has "
                + "booted: wait for it, check `launchbench devices`, then run again."
        }
    }
}
