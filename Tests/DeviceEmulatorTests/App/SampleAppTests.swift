import DeviceEmulator
import Foundation
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
