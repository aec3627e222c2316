import Foundation
import LaunchBench

/// An app installed on an emulated device: what installation_proxy reports and what launching needs.
package struct InstalledApp: Sendable, Hashable {
    package var bundleID: String
    package var executable: String
    /// `Sample.app`.
    package var bundleFolderName: String
    package var displayName: String?
    package var name: String?
    package var version: String?
    package var shortVersion: String?
    /// Entries of the bundle's `Frameworks/` folder, sorted (`SampleKit.framework`, `libX.dylib`).
    package var frameworks: [String]
    package var profile: AppProfile
    package var staticDiskUsage: Int
    /// The UUIDs of the device paths; fresh on every install.
    package var bundleUUID: UUID
    package var containerUUID: UUID
    /// The bundle's Mach-O binaries that could be read, by path inside the `.app` (`Sample`,
    /// `Frameworks/SampleKit.framework/SampleKit`): where dyld finds each image's static initializers.
    package var binaries: [String: MachOFile] = [:]

    /// `/private/var/containers/Bundle/Application/<UUID>/Sample.app`.
    package var path: String {
        "/private/var/containers/Bundle/Application/\(bundleUUID.uuidString)/\(bundleFolderName)"
    }
    /// `/private/var/mobile/Containers/Data/Application/<UUID>`.
    package var container: String { "/private/var/mobile/Containers/Data/Application/\(containerUUID.uuidString)" }
    package var executablePath: String { "\(path)/\(executable)" }

    /// Images inside the bundle dyld loads, relative to the `.app` folder (the profile's list, else
    /// derived from `Frameworks/`).
    package var bundleImages: [String] {
        if let listed = profile.bundleImages { return listed }
        return frameworks.compactMap { entry in
            if entry.hasSuffix(".framework") { return "Frameworks/\(entry)/\(entry.dropLast(".framework".count))" }
            if entry.hasSuffix(".dylib") { return "Frameworks/\(entry)" }
            return nil
        }
    }

    /// installation_proxy's attribute dictionary for this app.
    package var attributes: [String: Any] {
        var result: [String: Any] = [
            "CFBundleIdentifier": bundleID, "CFBundleExecutable": executable, "ApplicationType": "User",
            "Path": path, "Container": container, "StaticDiskUsage": staticDiskUsage, "DynamicDiskUsage": 4096,
        ]
        result["CFBundleDisplayName"] = displayName ?? name ?? executable
        result["CFBundleName"] = name ?? executable
        if let version { result["CFBundleVersion"] = version }
        if let shortVersion { result["CFBundleShortVersionString"] = shortVersion }
        return result
    }
}
