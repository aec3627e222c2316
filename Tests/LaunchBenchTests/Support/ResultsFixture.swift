import Foundation
import TestSupport

/// Results folders under `Fixtures/results/`, copied to a fresh temporary folder per test
/// (reports write into the folder, and tests run in parallel).
enum ResultsFixture {
    static let root = PackageRoot.at("Fixtures/results")

    /// A private copy of `Fixtures/results/<name>`; the caller removes it with `FileManager`.
    static func copy(_ name: String) throws -> URL {
        let destination = FileManager.default.temporaryDirectory
            .appendingPathComponent("launchbench-\(name)-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: root.appendingPathComponent(name), to: destination)
        return destination
    }

    /// An empty temporary folder.
    static func emptyFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("launchbench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
