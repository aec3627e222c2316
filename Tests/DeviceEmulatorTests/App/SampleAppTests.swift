import DeviceEmulator
import Foundation
import LaunchBench
import Testing

/// The sample app written by `SampleApp` (what `launchbench demo` measures, installed or not) is the
/// fixture the tests measure, byte for byte.
@Suite struct SampleAppTests {
    @Test func writesTheFixtureByteForByte() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sample-app-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let written = try SampleApp.write(into: folder)
        #expect(try Self.files(in: written) == Self.files(in: FixturePaths.sampleApp))
        #expect(!SampleApp.files.isEmpty)
    }

    /// Another build is the fixture with only `CFBundleVersion` changed: the emulated app's `changes` apply
    /// from a build on (`launchbench demo --build 35`).
    @Test func anotherBuildDiffersOnlyInItsBundleVersion() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sample-app-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let written = try SampleApp.write(into: folder, build: "35")
        var files = try Self.files(in: written)
        let fixture = try Self.files(in: FixturePaths.sampleApp)
        let removed = files.removeValue(forKey: "Info.plist")
        let info = try #require(removed)
        #expect(files == fixture.filter { $0.key != "Info.plist" })
        let fixtureInfo = try #require(fixture["Info.plist"])
        let plist = try PropertyListSerialization.propertyList(from: info, format: nil) as? [String: Any] ?? [:]
        let original =
            try PropertyListSerialization.propertyList(from: fixtureInfo, format: nil) as? [String: Any] ?? [:]
        #expect(plist["CFBundleVersion"] as? String == "35")
        #expect(original["CFBundleVersion"] as? String == SampleApp.fixtureBuild)
        #expect(Set(plist.keys) == Set(original.keys))
        let app = try AppBundle(contentsOf: written)
        #expect(app.build == "35")
        #expect(app.bundleID == SampleApp.bundleID)
    }

    @Test(arguments: ["", "35<", "3 5", "../35"])
    func refusesWhatIsNotABuildNumber(_ build: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sample-app-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: LaunchBenchError.self) { try SampleApp.write(into: folder, build: build) }
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    /// Every regular file under `app`, by its path relative to `app`.
    static func files(in app: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let root = app.resolvingSymlinksInPath().path
        let enumerator = try #require(FileManager.default.enumerator(atPath: root))
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = root + "/" + relative
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue
            else { continue }
            files[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        return files
    }
}
