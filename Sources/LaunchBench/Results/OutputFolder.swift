import Foundation

/// Chooses and prepares the folder a run writes into.
public enum OutputFolder {
    /// The folder default runs go under, relative to the current directory.
    public static let defaultParent = "launchbench-results"

    /// Creates the results folder and returns it.
    ///
    /// Without `output`, a new `launchbench-results/<UTC timestamp>` under `workingDirectory`. With `output`,
    /// that folder when it is missing or empty; a previous results folder (see `isResultsFolder`)
    /// is emptied and reused, so a CI job can pass the same `--output` every time. Anything else is refused.
    /// - Throws: `LaunchBenchError.outputFolderInUse` for a non-empty foreign folder or a file,
    ///   `LaunchBenchError.cannotWrite` when the folder cannot be created or emptied.
    public static func prepare(output: URL?, workingDirectory: URL, now: Date = Date()) throws -> URL {
        let fileManager = FileManager.default
        guard let output else {
            let parent = workingDirectory.appendingPathComponent(defaultParent)
            let stamp = timestamp(now)
            var candidate = parent.appendingPathComponent(stamp)
            var counter = 2
            while fileManager.fileExists(atPath: candidate.path) {
                candidate = parent.appendingPathComponent("\(stamp)-\(counter)")
                counter += 1
            }
            try create(candidate)
            return candidate
        }
        let folder = output.standardizedFileURL
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: folder.path, isDirectory: &isDirectory) else {
            try create(folder)
            return folder
        }
        guard isDirectory.boolValue else {
            throw LaunchBenchError.outputFolderInUse(path: folder.path, reason: "it is a file, not a folder")
        }
        let entries: [String]
        do {
            entries = try fileManager.contentsOfDirectory(atPath: folder.path).filter { $0 != ".DS_Store" }.sorted()
        } catch {
            throw LaunchBenchError.cannotWrite(path: folder.path, reason: "the folder cannot be listed (\(error.localizedDescription))")
        }
        if entries.isEmpty { return folder }
        guard isResultsFolder(folder) else {
            let shown = entries.prefix(3).joined(separator: ", ")
            let more = entries.count > 3 ? " and \(entries.count - 3) more" : ""
            throw LaunchBenchError.outputFolderInUse(
                path: folder.path, reason: "it already holds \(shown)\(more) and is not a launchbench results folder")
        }
        for entry in entries {
            let url = folder.appendingPathComponent(entry)
            do {
                try fileManager.removeItem(at: url)
            } catch {
                throw LaunchBenchError.cannotWrite(path: url.path, reason: "the previous results cannot be removed")
            }
        }
        return folder
    }

    /// Whether `folder` is a launchbench results folder: a `samples.jsonl` next to a `run.json` that names a
    /// run (`runID`) and the tool version that wrote it.
    public static func isResultsFolder(_ folder: URL) -> Bool {
        let fileManager = FileManager.default
        guard fileManager.fileExists(atPath: folder.appendingPathComponent("samples.jsonl").path),
            let data = fileManager.contents(atPath: folder.appendingPathComponent("run.json").path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return false }
        return object["runID"] is String && object["toolVersion"] is String
    }

    /// `2026-11-22T02-30-15Z`: sortable, and legal in file names everywhere.
    static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        return "\(c.year ?? 0)-\(two(c.month))-\(two(c.day))T\(two(c.hour))-\(two(c.minute))-\(two(c.second))Z"
    }

    private static func create(_ folder: URL) throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw LaunchBenchError.cannotWrite(path: folder.path, reason: "the folder cannot be created")
        }
    }
}
