import DeviceEmulator
import Foundation
import LaunchBench
import TestSupport

/// Copies of the Sample.app fixture with a scripted emulator profile, as `.app` folders or `.ipa`s.
enum TestApps {
    static let fixture = PackageRoot.at("Fixtures/SampleApp/Sample.app")

    /// A private copy of Sample.app in a fresh temp folder.
    /// - Parameters:
    ///   - profile: replaces `launchbench-emulator.json` (`nil` keeps the fixture's).
    ///   - symlink: adds `Frameworks/Current -> SampleKit.framework` to exercise symlink upload.
    static func app(profile: AppProfile? = nil, symlink: Bool = false) throws -> AppBundle {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lb-md-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let app = folder.appendingPathComponent("Sample.app")
        try FileManager.default.copyItem(at: fixture, to: app)
        if let profile {
            let encoder = JSONEncoder()
            try encoder.encode(profile).write(to: app.appendingPathComponent(AppProfile.fileName))
        }
        if symlink {
            try FileManager.default.createSymbolicLink(
                atPath: app.appendingPathComponent("Frameworks/Current").path,
                withDestinationPath: "SampleKit.framework")
        }
        return try AppBundle(contentsOf: app)
    }

    /// The same app packed as an `.ipa` by Scripts/make-ipa.
    static func ipa(from app: AppBundle) throws -> AppBundle {
        let output = app.url.deletingLastPathComponent().appendingPathComponent("Sample.ipa")
        let process = Process()
        process.executableURL = PackageRoot.at("Scripts/make-ipa")
        process.arguments = [app.url.path, output.path]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        return try AppBundle(contentsOf: output)
    }

    static func remove(_ app: AppBundle) {
        try? FileManager.default.removeItem(at: app.url.deletingLastPathComponent())
    }
}
