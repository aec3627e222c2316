import Foundation

/// An app to benchmark, as read from an `.app` folder or an `.ipa` (see `AppBundle+Reading.swift`).
package struct AppBundle: Sendable, Hashable, Codable {
    /// How the app reached us, which decides how it is uploaded and installed.
    package enum Packaging: String, Sendable, Hashable, Codable {
        /// A folder `X.app`: uploaded file by file, installed as a Developer package.
        case appFolder = "app"
        /// A zip with `Payload/X.app`: uploaded as one file, installed by bundle id.
        case ipa
    }

    /// Where the bundle was read from (folder or `.ipa` file).
    package var url: URL
    /// Folder or `.ipa`.
    package var packaging: Packaging
    /// `CFBundleIdentifier`.
    package var bundleID: String
    /// `CFBundleShortVersionString`, or `""` when absent.
    package var shortVersion: String
    /// `CFBundleVersion`, or `""` when absent.
    package var build: String
    /// `CFBundleExecutable`.
    package var executable: String
    /// The `.app` folder's name, e.g. `Sample.app`.
    package var bundleName: String
    /// Entries of the embedded `Frameworks/` folder (`Foo.framework`, `libBar.dylib`), sorted.
    package var frameworks: [String]

    /// A bundle described field by field (`init(contentsOf:)` reads one from disk).
    package init(
        url: URL, packaging: Packaging, bundleID: String, shortVersion: String, build: String, executable: String,
        bundleName: String, frameworks: [String]
    ) {
        self.url = url
        self.packaging = packaging
        self.bundleID = bundleID
        self.shortVersion = shortVersion
        self.build = build
        self.executable = executable
        self.bundleName = bundleName
        self.frameworks = frameworks
    }

    /// `1.2 (34)`, the way people speak of a build.
    package var versionDescription: String {
        switch (shortVersion.isEmpty, build.isEmpty) {
        case (false, false): return "\(shortVersion) (\(build))"
        case (false, true): return shortVersion
        case (true, false): return build
        case (true, true): return "unknown version"
        }
    }
}
