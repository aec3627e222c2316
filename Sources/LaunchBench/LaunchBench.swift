/// The tool's version, written into every `run.json` and baseline.
package enum LaunchBenchVersion {
    /// This build's version.
    package static let current = "0.1.0"
}
