import Foundation
import LaunchBench

/// Reads an app staged for installation — a `.app` folder or an `.ipa` zip — into an `InstalledApp`
/// with fresh `Path`/`Container` UUIDs, through the core's reader (`AppBundleContents`: the rules the run
/// reads a bundle by). Failures carry the installation_proxy error a real device sends.
enum AppBundleLoader {
    struct Failure: Error, Equatable {
        /// installation_proxy `Error` name.
        var error: String
        var description: String
    }

    /// Reads the `.app` folder or `.ipa` at `url`.
    static func load(_ url: URL) throws(Failure) -> InstalledApp {
        let contents: AppBundleContents
        do {
            contents = try AppBundleContents.read(url, files: [AppProfile.fileName], measuringSize: true)
        } catch {
            throw failure(error, path: url.path)
        }
        var app = try make(
            folderName: contents.bundleName, infoData: contents.infoPlist,
            profileData: contents.files[AppProfile.fileName],
            frameworks: contents.frameworks, size: contents.size)
        app.binaries = binaries(of: app, at: url)
        return app
    }

    /// The executable's and the frameworks' Mach-O files that read; a placeholder or broken binary is left
    /// out (its initializers are then modelled), as installd checks signatures, not initializers.
    private static func binaries(of app: InstalledApp, at url: URL) -> [String: MachOFile] {
        let paths = [app.executable] + app.bundleImages
        guard let contents = try? AppBundleContents.read(url, files: paths) else { return [:] }
        var binaries: [String: MachOFile] = [:]
        for (path, data) in contents.files {
            binaries[path] = try? MachOFile.read(data, path: path)
        }
        return binaries
    }

    /// installd's error for a package the reader refused.
    private static func failure(_ problem: AppBundleContents.Problem, path: String) -> Failure {
        switch problem {
        case .notFound: Failure(error: "PackageExtractionFailed", description: "Could not find the package at \(path)")
        case .notAZip:
            Failure(error: "PackageExtractionFailed", description: "Could not open the package as a zip archive")
        case .noApp: Failure(error: "PackageInspectionFailed", description: "No Payload/*.app folder in the package")
        case .noInfoPlist:
            Failure(error: "PackageInspectionFailed", description: "Failed to load Info.plist from bundle at \(path)")
        case .severalApps, .unreadable:
            Failure(error: "PackageInspectionFailed", description: "Failed to inspect the package: \(problem.reason)")
        }
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
}
