import Foundation
import TestSupport

/// `Fixtures/` of the package, found from this file's location.
enum FixturePaths {
    static let root = PackageRoot.at("Fixtures")

    static var sampleApp: URL { root.appendingPathComponent("SampleApp/Sample.app") }
}
