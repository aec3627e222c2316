import Foundation
import LaunchBench
import ZIPFoundation

/// Reads an app staged for installation — a `.app` folder or an `.ipa` zip — into an `InstalledApp`
/// with fresh `Path`/`Container` UUIDs. Failures carry the installation_proxy error a real device sends.
enum AppBundleLoader {
    struct Failure: Error, Equatable {
        /// installation_proxy `Error` name.
        var error: String
        var description: String
    }

    /// Reads the `.app` folder at `url`.
    static func loadFolder(_ url: URL) throws(Failure) -> InstalledApp {
        let fm = FileManager.default
        let infoData = fm.contents(atPath: url.appendingPathComponent("Info.plist").path)
        let profileData = fm.contents(atPath: url.appendingPathComponent(AppProfile.fileName).path)
        let frameworks = (try? fm.contentsOfDirectory(atPath: url.appendingPathComponent("Frameworks").path)) ?? []
        let size = folderSize(url)
        return try make(
            folderName: url.lastPathComponent, infoData: infoData, profileData: profileData, frameworks: frameworks,
            size: size)
    }

    /// Reads the `.ipa` (zip with `Payload/X.app/`) at `url`.
    static func loadIPA(_ url: URL) throws(Failure) -> InstalledApp {
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw Failure(
                error: "PackageExtractionFailed", description: "Could not open the package as a zip archive: \(error)")
        }
        var folderName: String?
        for entry in archive {
            let parts = entry.path.split(separator: "/", omittingEmptySubsequences: true)
            if parts.count >= 2, parts[0] == "Payload", parts[1].hasSuffix(".app") {
                folderName = String(parts[1])
                break
            }
        }
        guard let folderName else {
            throw Failure(error: "PackageInspectionFailed", description: "No Payload/*.app folder in the package")
        }
        let prefix = "Payload/\(folderName)/"
        var infoData: Data?
        var profileData: Data?
        var frameworks = Set<String>()
        var size = 0
        // The same caps as the core's reader: a hostile archive cannot make the emulated installd inflate gigabytes.
        var reader = BoundedArchiveReader()
        for entry in archive where entry.path.hasPrefix(prefix) {
            let inside = String(entry.path.dropFirst(prefix.count))
            size += Int(entry.uncompressedSize)
            if inside == "Info.plist" { infoData = try? reader.read(entry, from: archive) }
            if inside == AppProfile.fileName { profileData = try? reader.read(entry, from: archive) }
            if inside.hasPrefix("Frameworks/") {
                let name = inside.dropFirst("Frameworks/".count).split(separator: "/").first.map(String.init)
                if let name, !name.isEmpty { frameworks.insert(name) }
            }
        }
        return try make(
            folderName: folderName, infoData: infoData, profileData: profileData, frameworks: Array(frameworks),
            size: size)
    }

    private static func make(
        folderName: String, infoData: Data?, profileData: Data?, frameworks: [String], size: Int
    ) throws(Failure) -> InstalledApp {
        guard let infoData else {
            throw Failure(
                error: "PackageInspectionFailed", description: "Failed to load Info.plist from bundle at \(folderName)")
        }
        let plist = try? PropertyListSerialization.propertyList(from: infoData, options: [], format: nil)
        guard let info = plist as? [String: Any] else {
            throw Failure(
                error: "PackageInspectionFailed",
                description: "Info.plist of \(folderName) is not a property list dictionary")
        }
        guard let bundleID = info["CFBundleIdentifier"] as? String, !bundleID.isEmpty else {
            throw Failure(
                error: "MissingBundleIdentifier",
                description: "Bundle at \(folderName) does not have a bundle identifier")
        }
        guard let executable = info["CFBundleExecutable"] as? String, !executable.isEmpty else {
            throw Failure(
                error: "MissingBundleExecutable",
                description: "Bundle at \(folderName) does not have a CFBundleExecutable")
        }
        var profile = AppProfile.default
        if let profileData {
            do {
                profile = try AppProfile.decode(profileData)
            } catch {
                throw Failure(error: "ApplicationVerificationFailed", description: error.localizedDescription)
            }
        }
        return InstalledApp(
            bundleID: bundleID, executable: executable, bundleFolderName: folderName,
            displayName: info["CFBundleDisplayName"] as? String, name: info["CFBundleName"] as? String,
            version: info["CFBundleVersion"] as? String, shortVersion: info["CFBundleShortVersionString"] as? String,
            frameworks: frameworks.sorted(), profile: profile, staticDiskUsage: max(size, 4096), bundleUUID: UUID(),
            containerUUID: UUID())
    }

    private static func folderSize(_ url: URL) -> Int {
        guard let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.fileSizeKey]) else {
            return 0
        }
        var total = 0
        for case let file as URL in walker {
            total += (try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
        }
        return total
    }
}
