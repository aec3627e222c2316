import Foundation

/// The checkout the tests run from, found from this file's own path: the one place a test computes it.
package enum PackageRoot {
    /// The package's root folder (this file is `Tests/Support/PackageRoot.swift`).
    package static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A file or folder of the checkout, e.g. `PackageRoot.at("Fixtures/SampleApp/Sample.app")`.
    package static func at(_ relativePath: String) -> URL { url.appendingPathComponent(relativePath) }
}
