import Foundation
import ZIPFoundation

/// What an `.app` folder or an `.ipa` (a zip holding exactly one `Payload/<Name>.app`) holds that launchbench
/// and the emulated installd read: one reader, one set of rules for both (`AppBundle(contentsOf:)` and the
/// emulator's `AppBundleLoader`, which turns a `Problem` into the installation_proxy error a phone sends).
package struct AppBundleContents: Sendable {
    /// A folder or an `.ipa`.
    package var packaging: AppBundle.Packaging
    /// The bundle's folder name, e.g. `Sample.app`.
    package var bundleName: String
    /// The bundle's `Info.plist`, as stored.
    package var infoPlist: Data
    /// Where the `Info.plist` was read, for messages: the folder's file, or `APP.ipa (Payload/X.app/Info.plist)`.
    var infoPlistLocation: String
    /// The requested top-level files of the bundle that exist, by name.
    package var files: [String: Data]
    /// First-level entries of `Frameworks/`, sorted, hidden ones left out.
    package var frameworks: [String]
    /// The bundle's unpacked size in bytes (the sum of its files), when asked for (`measuringSize`).
    package var size: Int

    /// Why a path is not an app.
    package enum Problem: Error, Sendable, Equatable {
        /// Nothing is at the path.
        case notFound
        /// A file that is not a zip archive.
        case notAZip
        /// An archive without a `Payload/<Name>.app` folder.
        case noApp
        /// An archive whose `Payload` holds several apps (their names).
        case severalApps([String])
        /// The bundle has no `Info.plist` (`entry`: its path in the archive, `nil` for a folder).
        case noInfoPlist(entry: String?)
        /// An entry the bounded reader refused (too large, corrupt).
        case unreadable(reason: String)

        /// What is wrong, in words (after "… is not an app: ").
        package var reason: String {
            switch self {
            case .notFound: "nothing is there"
            case .notAZip: "it is a file but not a zip archive"
            case .noApp: "the archive holds no Payload/<Name>.app folder"
            case .severalApps(let names): "the archive's Payload holds several apps (\(names.joined(separator: ", ")))"
            case .noInfoPlist(let entry?): "\(entry) is missing"
            case .noInfoPlist(nil): "the folder has no Info.plist"
            case .unreadable(let reason): reason
            }
        }
    }

    /// Reads the bundle at `url`, with the top-level files named in `files` when they exist. `size` stays 0
    /// unless `measuringSize`: for a folder it is a walk over every file, which installd's report needs and a
    /// run does not.
    /// - Throws: `Problem`.
    package static func read(
        _ url: URL, files names: [String] = [], measuringSize: Bool = false
    ) throws(Problem) -> AppBundleContents {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { throw .notFound }
        return try isDirectory.boolValue
            ? readFolder(url, files: names, measuringSize: measuringSize)
            : readArchive(url, files: names, measuringSize: measuringSize)
    }

    private static func readFolder(
        _ url: URL, files names: [String], measuringSize: Bool
    ) throws(Problem) -> AppBundleContents {
        let manager = FileManager.default
        let plistURL = url.appendingPathComponent("Info.plist")
        guard let infoPlist = manager.contents(atPath: plistURL.path) else {
            throw .noInfoPlist(entry: nil)
        }
        var files: [String: Data] = [:]
        for name in names { files[name] = manager.contents(atPath: url.appendingPathComponent(name).path) }
        let frameworks = (try? manager.contentsOfDirectory(atPath: url.appendingPathComponent("Frameworks").path)) ?? []
        var size = 0
        if measuringSize, let walker = manager.enumerator(at: url, includingPropertiesForKeys: [.fileSizeKey]) {
            for case let file as URL in walker {
                size += (try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
            }
        }
        return AppBundleContents(
            packaging: .appFolder, bundleName: url.lastPathComponent, infoPlist: infoPlist,
            infoPlistLocation: url.path, files: files, frameworks: frameworks.filter { !$0.hasPrefix(".") }.sorted(),
            size: size)
    }

    private static func readArchive(
        _ url: URL, files names: [String], measuringSize: Bool
    ) throws(Problem) -> AppBundleContents {
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw .notAZip
        }
        let layout = IPALayout(entryPaths: archive.map(\.path))
        guard let appName = layout.appNames.first else { throw .noApp }
        guard layout.appNames.count == 1 else { throw .severalApps(layout.appNames) }
        let prefix = "Payload/\(appName)/"
        let plistPath = prefix + "Info.plist"
        guard let plistEntry = archive[plistPath] else { throw .noInfoPlist(entry: plistPath) }
        // Capped: a hostile archive cannot make launchbench, or the emulated installd, inflate gigabytes.
        var reader = BoundedArchiveReader()
        func read(_ entry: Entry) throws(Problem) -> Data {
            do {
                return try reader.read(entry, from: archive)
            } catch {
                throw .unreadable(reason: error.reason)
            }
        }
        let infoPlist = try read(plistEntry)
        var files: [String: Data] = [:]
        for name in names {
            if let entry = archive[prefix + name] { files[name] = try read(entry) }
        }
        var size = 0
        if measuringSize {
            for entry in archive where entry.path.hasPrefix(prefix) { size += Int(entry.uncompressedSize) }
        }
        return AppBundleContents(
            packaging: .ipa, bundleName: appName, infoPlist: infoPlist, infoPlistLocation: "\(url.path) (\(plistPath))",
            files: files, frameworks: layout.frameworks(in: appName), size: size)
    }
}
