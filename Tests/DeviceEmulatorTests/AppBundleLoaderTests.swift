import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import DeviceEmulator

/// The emulated installd reads a bundle by the rules the run reads it by (one reader, `AppBundleContents`),
/// and turns what that reader refuses into installd's errors.
@Suite(.tags(.subprocess)) struct AppBundleLoaderTests {
    static func makeIPA(_ app: URL, named name: String) throws -> URL {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "loader-\(UUID().uuidString)-\(name)")
        let script = Process()
        script.executableURL = PackageRoot.at("Scripts/make-ipa")
        script.arguments = [app.path, output.path]
        script.standardOutput = FileHandle.nullDevice
        try script.run()
        script.waitUntilExit()
        try #require(script.terminationStatus == 0, "Scripts/make-ipa failed; run Scripts/bootstrap")
        return output
    }

    @Test func theEmulatorAndTheRunReadTheSampleAppAlike() throws {
        let ipa = try Self.makeIPA(FixturePaths.sampleApp, named: "Sample.ipa")
        defer { try? FileManager.default.removeItem(at: ipa) }
        for url in [FixturePaths.sampleApp, ipa] {
            let bundle = try AppBundle(contentsOf: url)
            let installed = try AppBundleLoader.load(url)
            #expect(installed.bundleID == bundle.bundleID)
            #expect(installed.executable == bundle.executable)
            #expect(installed.bundleFolderName == bundle.bundleName)
            #expect(installed.frameworks == bundle.frameworks)
            #expect(!installed.frameworks.isEmpty)
        }
    }

    @Test func whatTheRunRefusesInstalldRefusesWithItsOwnError() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loader-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let notAZip = folder.appendingPathComponent("App.ipa")
        let noPlist = folder.appendingPathComponent("Empty.app")
        try FileManager.default.createDirectory(at: noPlist, withIntermediateDirectories: true)
        try Data("not a zip".utf8).write(to: notAZip)
        for (url, installdError) in [(notAZip, "PackageExtractionFailed"), (noPlist, "PackageInspectionFailed")] {
            #expect(throws: LaunchBenchError.self) { try AppBundle(contentsOf: url) }
            #expect {
                try AppBundleLoader.load(url)
            } throws: { error in
                (error as? AppBundleLoader.Failure)?.error == installdError
            }
        }
    }
}
