import Foundation

/// `Fixtures/` of the package, found from this file's location.
enum FixturePaths {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    static var sampleApp: URL { root.appendingPathComponent("SampleApp/Sample.app") }
}
