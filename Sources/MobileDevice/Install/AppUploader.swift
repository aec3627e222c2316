import Foundation
import LaunchBench

/// Copies an app into the device's `PublicStaging` folder over AFC, the way ideviceinstaller does:
/// an `.app` folder file by file (folders, files in ≤ 1 MiB writes, symlinks), an `.ipa` as one file.
struct AppUploader {
    static let stagingFolder = "PublicStaging"

    let afc: AFCClient
    let cancellation: CancellationFlag

    /// Uploads `app`; returns the package path and the ClientOptions installd needs for it.
    func upload(_ app: AppBundle) throws -> (packagePath: String, options: PropertyListValue) {
        if try !afc.exists(Self.stagingFolder) { try afc.makeDirectory(Self.stagingFolder) }
        switch app.packaging {
        case .appFolder:
            let remote = "\(Self.stagingFolder)/\(app.bundleName)"
            // A staged copy from an earlier run may hold files this build no longer has.
            try? afc.removeRecursively(remote)
            try afc.makeDirectory(remote)
            try uploadFolder(app.url, to: remote)
            return (remote, ["PackageType": "Developer"])
        case .ipa:
            let remote = "\(Self.stagingFolder)/\(app.bundleID)"
            try uploadFile(app.url, to: remote)
            return (remote, ["CFBundleIdentifier": .string(app.bundleID)])
        }
    }

    private func uploadFolder(_ folder: URL, to remote: String) throws {
        let files = FileManager.default
        let entries: [String]
        do {
            entries = try files.contentsOfDirectory(atPath: folder.path).sorted()
        } catch {
            throw LaunchBenchError.fileNotFound(path: folder.path, what: "App folder")
        }
        for entry in entries {
            guard !cancellation.isCancelled else { throw CancellationError() }
            let local = folder.appendingPathComponent(entry)
            let target = "\(remote)/\(entry)"
            let type = (try? files.attributesOfItem(atPath: local.path)[.type] as? FileAttributeType) ?? nil
            switch type {
            case .typeSymbolicLink?:
                try afc.makeSymbolicLink(at: target, to: try files.destinationOfSymbolicLink(atPath: local.path))
            case .typeDirectory?:
                try afc.makeDirectory(target)
                try uploadFolder(local, to: target)
            case .typeRegular?:
                try uploadFile(local, to: target)
            default:
                continue  // sockets, devices: nothing an app bundle ships
            }
        }
    }

    private func uploadFile(_ local: URL, to remote: String) throws {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: local)
        } catch {
            throw LaunchBenchError.fileNotFound(path: local.path, what: "App file")
        }
        defer { try? handle.close() }
        try afc.writeFile(remote) {
            guard !cancellation.isCancelled else { throw CancellationError() }
            do {
                return try handle.read(upToCount: AFCClient.maximumWrite).map { Array($0) }
            } catch {
                throw LaunchBenchError.notAnApp(
                    path: local.path, reason: "cannot read it: \(error.localizedDescription)")
            }
        }
    }
}
