import Foundation

extension RunManifest {
    /// One build of an A/B run (`run NEW --against BASE`), as run.json's `builds` lists them: which it was,
    /// where it was read from, its version and the digest of its bytes.
    package struct Build: Sendable, Hashable, Codable {
        /// `new` or `base` (the samples' `build`).
        package var role: String?
        /// The bundle's path as given.
        package var path: String?
        /// `CFBundleIdentifier`.
        package var bundleID: String?
        /// `1.2 (34)`.
        package var version: String?
        /// ``AppBundle/contentDigest()``: equal digests are one build measured twice (an A/A run).
        package var digest: String?

        /// A build from its fields.
        package init(
            role: String? = nil, path: String? = nil, bundleID: String? = nil, version: String? = nil,
            digest: String? = nil
        ) {
            self.role = role
            self.path = path
            self.bundleID = bundleID
            self.version = version
            self.digest = digest
        }

        /// Reads a build field by field, as the rest of run.json.
        package init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            role = try? c.decodeIfPresent(String.self, forKey: .role)
            path = try? c.decodeIfPresent(String.self, forKey: .path)
            bundleID = try? c.decodeIfPresent(String.self, forKey: .bundleID)
            version = try? c.decodeIfPresent(String.self, forKey: .version)
            digest = try? c.decodeIfPresent(String.self, forKey: .digest)
        }

        private enum CodingKeys: String, CodingKey {
            case role, path, bundleID, version, digest
        }
    }

    /// The folder inside an A/B run's results folder that holds the base build's launches: a results folder
    /// of its own (run.json, samples.jsonl, exports), so `report DIR/base` works and DIR's exports hold the
    /// new build only.
    package static let baseFolderName = "base"

    /// The sample `build` of an A/B run's new build.
    package static let newBuild = "new"
    /// The sample `build` of an A/B run's base build.
    package static let baseBuild = "base"

    /// Whether this run measured two builds (`builds` names a base).
    package var isABRun: Bool { builds?.contains { $0.role == Self.baseBuild } ?? false }
}

extension RunManifest.Build {
    /// The build `bundle` as run.json names it in `role`, with its digest when its bytes can be read.
    package init(_ bundle: AppBundle, role: String) {
        self.init(
            role: role, path: bundle.url.path, bundleID: bundle.bundleID, version: bundle.versionDescription,
            digest: try? bundle.contentDigest())
    }
}
