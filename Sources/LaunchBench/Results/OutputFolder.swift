import Foundation

/// Chooses and prepares the folder a run writes into.
package enum OutputFolder {
    /// The folder default runs go under, relative to the current directory.
    static let defaultParent = "launchbench-results"

    /// What launchbench writes into a results folder: the only entries `--overwrite` removes. The exports come
    /// from `ExportFile`, the list `ResultExports.writeAll` writes, so a new export is removed with the rest.
    static let writtenEntries =
        [ResultsFolder.FileName.manifest, ResultsFolder.FileName.samples, ResultsFolder.FileName.samplesCSV]
        + ExportFile.allCases.map(\.fileName) + ResultsMerge.deviceFolders + [
            RunManifest.referenceFolderName, RunManifest.baseFolderName, ResultsStore.reserveFileName,
        ]

    /// Creates the results folder and returns it.
    ///
    /// Without `output`, a new `launchbench-results/<UTC timestamp>` under `workingDirectory`. With `output`,
    /// that folder when it is missing or empty. A results folder is never replaced silently: a previous results
    /// folder (see `isResultsFolder`) is reused only with `overwrite`, and then only what launchbench wrote there
    /// (`writtenEntries`) is removed; the user's other files stay. Anything else is refused, and so is a folder
    /// that is, holds or lies inside one of `protected` (the baseline being compared).
    /// - Throws: `LaunchBenchError.outputFolderInUse` for a non-empty folder or a file,
    ///   `.outputIsBaseline` when it overlaps a protected path, `.cannotWrite` when the folder cannot be created
    ///   or emptied.
    package static func prepare(
        output: URL?, workingDirectory: URL, now: Date = Date(), overwrite: Bool = false, protected: [URL] = []
    ) throws -> URL {
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
        for path in protected {
            if let relation = overlap(folder, path) {
                throw LaunchBenchError.outputIsBaseline(path: folder.path, relation: relation, baseline: path.path)
            }
        }
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
            throw LaunchBenchError.cannotWrite(
                path: folder.path, reason: "the folder cannot be listed (\(error.localizedDescription))")
        }
        if entries.isEmpty { return folder }
        let shown = entries.prefix(3).joined(separator: ", ")
        let listed = shown + (entries.count > 3 ? " and \(entries.count - 3) more" : "")
        guard isResultsFolder(folder) else {
            throw LaunchBenchError.outputFolderInUse(
                path: folder.path, reason: "it already holds \(listed) and is not a launchbench results folder")
        }
        guard overwrite else {
            throw LaunchBenchError.outputFolderInUse(
                path: folder.path,
                reason: "it holds an earlier run's results (\(listed)); add --overwrite to replace them")
        }
        for entry in entries where writtenEntries.contains(entry) {
            let url = folder.appendingPathComponent(entry)
            do {
                try fileManager.removeItem(at: url)
            } catch {
                throw LaunchBenchError.cannotWrite(path: url.path, reason: "the previous results cannot be removed")
            }
        }
        return folder
    }

    /// How `folder` overlaps `protected` ("it is", "it holds", "it lies inside"), `nil` when apart. Paths are
    /// compared with symbolic links resolved, so `--output link-to-baseline` is caught too.
    static func overlap(_ folder: URL, _ protected: URL) -> String? {
        func components(_ url: URL) -> [String] {
            url.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        }
        let a = components(folder)
        let b = components(protected)
        if a == b { return "it is" }
        if b.count > a.count, Array(b.prefix(a.count)) == a { return "it holds" }
        if a.count > b.count, Array(a.prefix(b.count)) == b { return "it lies inside" }
        return nil
    }

    /// Whether `folder` is a launchbench results folder: a `samples.jsonl` next to a `run.json` that names a
    /// run (`runID`) and the tool version that wrote it.
    package static func isResultsFolder(_ folder: URL) -> Bool {
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
