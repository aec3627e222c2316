import Foundation

extension ResultsFolder {
    /// Samples written before `samples.jsonl` kept dyld's per-image initializer list get it back from their
    /// raw log (`logs/UDID/NNNN-cold.log`), so `report` on an older results folder still names the slow
    /// initializers. Only launches with dyld's initializer phase measured are read; a missing or unreadable
    /// log leaves the sample as it was.
    static func recoveringInitializers(_ sample: Sample, folder: URL) -> Sample {
        guard sample.initializers == nil, !sample.status.isFailure, sample[.initializerMs] != nil,
            let logPath = sample.logPath, !logPath.hasPrefix("/"), !logPath.contains("..")
        else { return sample }
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(logPath).path),
            let list = LaunchLogParser.parse(data).first?.imageInitializers
        else { return sample }
        var recovered = sample
        recovered.initializers = list
        return recovered
    }
}
