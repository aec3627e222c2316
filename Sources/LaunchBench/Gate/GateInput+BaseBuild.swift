import Foundation

extension GateInput {
    /// The base build's side of an A/B results folder: DIR/base/, a results folder of its own.
    package struct BaseBuild: Sendable {
        /// DIR/base/ as read.
        package var folder: ResultsFolder
        /// Its launches.
        package var launches: GateLaunches

        /// DIR/base/ of `folder` when `folder` is an A/B run's (its run.json names a base build, or DIR/base/
        /// holds samples); `nil` otherwise.
        /// - Throws: `LaunchBenchError` when DIR/base/ is there but cannot be read.
        static func load(_ folder: ResultsFolder) throws -> BaseBuild? {
            let url = folder.url.appendingPathComponent(RunManifest.baseFolderName)
            let samples = url.appendingPathComponent(ResultsFolder.FileName.samples)
            // The run opens DIR/base/samples.jsonl before its first launch: an A/B folder without it lost it.
            guard FileManager.default.fileExists(atPath: samples.path) else {
                guard folder.manifest?.isABRun == true else { return nil }
                throw LaunchBenchError.fileNotFound(
                    path: samples.path, what: "The base build's samples.jsonl of this A/B run (`run --against`)")
            }
            var counts = GateLaunches.Counts()
            let baseFolder = try ResultsFolder.load(url) { counts.add($0) }
            return BaseBuild(folder: baseFolder, launches: GateLaunches(summary: baseFolder.summary, counts: counts))
        }
    }
}
