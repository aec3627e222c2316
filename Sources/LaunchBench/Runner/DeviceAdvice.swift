/// What the runner tells the user about a device before measuring it, from its iOS version.
public enum DeviceAdvice: Sendable, Hashable {
    /// The device cannot be measured; the message says why and what to do.
    case skip(String)
    /// The device is measured; the notes explain which values to expect.
    case measure(notes: [String])

    /// The advice for `device` under `plan`.
    public static func advice(for device: DeviceInfo, plan: RunPlan) -> DeviceAdvice {
        let label = "\(device.name) (\(device.modelName), \(device.udid))"
        guard let version = device.version else {
            return .measure(notes: [
                "\(label) reports iOS version \"\(device.osVersion)\", which cannot be read; measuring anyway."
            ])
        }
        guard version.offersDebugserver else {
            return .skip(
                "Skipping \(label): it runs iOS \(version), and from iOS 17 on the device no longer offers "
                    + "debugserver through lockdown, so libimobiledevice cannot launch apps on it. Measure it with "
                    + "Xcode Instruments (App Launch) or `xcrun devicectl device process launch`, or use a device on "
                    + "iOS 16 or earlier.")
        }
        switch version.dyldStatistics {
        case .always:
            return .measure(notes: [])
        case .onlyWithOverride where plan.setsDyldOverride:
            return .measure(notes: [
                "\(label), iOS \(version): an override variable is set, so dyld takes the dyld2 path and prints "
                    + "pre-main statistics; after-main comes from the app's [launchbench] markers."
            ])
        case .onlyWithOverride:
            return .measure(notes: [
                "\(label), iOS \(version): dyld3 prints pre-main statistics only when an override variable such as "
                    + "DYLD_INSERT_LIBRARIES is set (as Xcode sets it for its Main Thread Checker: --env "
                    + "DYLD_INSERT_LIBRARIES=/Developer/usr/lib/libMainThreadChecker.dylib, with the developer disk image "
                    + "mounted); "
                    + "after-main comes from the app's [launchbench] markers."
            ])
        case .never:
            return .measure(notes: [
                "\(label), iOS \(version): dyld4 does not print pre-main statistics; launch times come from the "
                    + "app's [launchbench] markers (add the LaunchProbe library to the app)."
            ])
        }
    }
}
