/// The tool's version, written into every `run.json` and baseline.
public enum LaunchBenchVersion {
    /// This build's version.
    public static let current = "0.1.0"
}
