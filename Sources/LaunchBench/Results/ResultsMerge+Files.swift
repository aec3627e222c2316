import Foundation

extension ResultsMerge {
    /// The per-device folders of a results folder that samples and reports point into: raw launch logs
    /// (`Sample.logPath`), kdebug timelines (the HTML report links `traces/UDID/`) and raw kdebug files.
    static let deviceFolders = ["logs", "traces", "kdebug"]

    /// Copies each shard's `logs/UDID/`, `traces/UDID/` and `kdebug/UDID/` (those present) into `destination`,
    /// so every path the merged samples and reports name exists there. UDIDs are unique across shards (see
    /// `Refusal.sameDevice`), so the folders never collide; one that does is left as the first shard wrote it.
    /// - Returns: notes on what was not copied, for the user.
    /// - Throws: `LaunchBenchError.cannotWrite` when a copy fails.
    package static func copyDeviceFolders(from shards: [URL], to destination: URL) throws -> [String] {
        let fileManager = FileManager.default
        var notes: [String] = []
        for name in deviceFolders {
            let target = destination.appendingPathComponent(name)
            for shard in shards {
                let source = shard.appendingPathComponent(name)
                guard let entries = try? fileManager.contentsOfDirectory(atPath: source.path) else { continue }
                for entry in entries.sorted() {
                    let copy = target.appendingPathComponent(entry)
                    if fileManager.fileExists(atPath: copy.path) {
                        notes.append(
                            "\(source.appendingPathComponent(entry).path) was not copied: the merged folder already "
                                + "holds \(name)/\(entry) from another shard.")
                        continue
                    }
                    do {
                        try fileManager.createDirectory(at: target, withIntermediateDirectories: true)
                        try fileManager.copyItem(at: source.appendingPathComponent(entry), to: copy)
                    } catch {
                        throw LaunchBenchError.cannotWrite(path: copy.path, reason: error.localizedDescription)
                    }
                }
            }
        }
        return notes
    }
}
