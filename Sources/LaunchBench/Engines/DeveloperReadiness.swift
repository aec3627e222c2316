/// Whether a device is ready for developer services: Developer Mode on (iOS 16+) and a Developer Disk
/// Image mounted (the personalized one from iOS 17 on). `launchbench devices` shows it per device.
package struct DeveloperReadiness: Sendable, Hashable, Codable {
    /// The state of one requirement.
    package enum State: String, Sendable, Hashable, Codable {
        case ready
        case notReady = "not ready"
        /// The iOS has no such requirement (Developer Mode before iOS 16).
        case notNeeded = "not needed"
        /// The device did not say (e.g. the service is not offered, or the device is locked).
        case unknown
    }

    /// Developer Mode (Settings > Privacy & Security), required from iOS 16.
    package var developerMode: State
    /// The Developer Disk Image (personalized from iOS 17).
    package var diskImage: State
    /// What to do about each `notReady`, naming the command that fixes it.
    package var advice: [String]

    /// A device's readiness with the advice for what is missing.
    package init(developerMode: State, diskImage: State, advice: [String] = []) {
        self.developerMode = developerMode
        self.diskImage = diskImage
        self.advice = advice
    }

    /// The fixes, for a device and its iOS.
    package static func advice(udid: String, developerMode: State, diskImage: State, modern: Bool) -> [String] {
        var advice: [String] = []
        if developerMode == .notReady {
            advice.append(
                "Developer Mode is off on \(udid): turn it on in Settings > Privacy & Security > Developer Mode "
                    + "(or `pymobiledevice3 amfi enable-developer-mode --udid \(udid)`), then restart the device.")
        }
        if diskImage == .notReady {
            advice.append(
                modern
                    ? "No Developer Disk Image is mounted on \(udid): run `pymobiledevice3 mounter auto-mount --udid "
                        + "\(udid)` (downloads the personalized image; needs the network), or attach it to Xcode once."
                    : "No Developer Disk Image is mounted on \(udid): run `pymobiledevice3 mounter auto-mount --udid "
                        + "\(udid)` or `ideviceimagemounter` with the image of its iOS version, or attach it to Xcode once."
            )
        }
        return advice
    }
}
