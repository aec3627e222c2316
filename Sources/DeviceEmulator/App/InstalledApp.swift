import Foundation
import LaunchBench

/// An app installed on an emulated device: what installation_proxy reports and what launching needs.
public struct InstalledApp: Sendable, Hashable {
    public var bundleID: String
    public var executable: String
    /// `Sample.app`.
    public var bundleFolderName: String
    public var displayName: String?
    public var name: String?
    public var version: String?
    public var shortVersion: String?
    /// Entries of the bundle's `Frameworks/` folder, sorted (`SampleKit.framework`, `libX.dylib`).
    public var frameworks: [String]
    public var profile: AppProfile
    public var staticDiskUsage: Int
    /// The UUIDs of the device paths; fresh on every install.
    public var bundleUUID: UUID
    public var containerUUID: UUID

    /// `/private/var/containers/Bundle/Application/<UUID>/Sample.app`.
    public var path: String {
        "/private/var/containers/Bundle/Application/\(bundleUUID.uuidString)/\(bundleFolderName)"
    }
    /// `/private/var/mobile/Containers/Data/Application/<UUID>`.
    public var container: String { "/private/var/mobile/Containers/Data/Application/\(containerUUID.uuidString)" }
    public var executablePath: String { "\(path)/\(executable)" }

    /// Images inside the bundle dyld loads, relative to the `.app` folder (the profile's list, else
    /// derived from `Frameworks/`).
    public var bundleImages: [String] {
        if let listed = profile.bundleImages { return listed }
        return frameworks.compactMap { entry in
            if entry.hasSuffix(".framework") { return "Frameworks/\(entry)/\(entry.dropLast(".framework".count))" }
            if entry.hasSuffix(".dylib") { return "Frameworks/\(entry)" }
            return nil
        }
    }

    /// installation_proxy's attribute dictionary for this app.
    public var attributes: [String: Any] {
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
