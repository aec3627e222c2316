import Foundation

/// What the gate can fail with before comparing anything.
package enum GateError: Error, Sendable, Equatable {
    /// The baseline path does not exist (exit 5: CI scripts tell "no baseline yet" from a failure).
    case baselineNotFound(path: String)
    /// A results folder (or a summary.json) without the launches the tests need.
    case noLaunches(path: String, role: GateRole, reason: String)
}

/// Which side of a comparison a folder is.
package enum GateRole: String, Sendable, Equatable {
    /// What the current run is compared against.
    case baseline
    /// The run being judged.
    case current
}

extension GateError {
    /// A side whose samples.jsonl holds no launches.
    static func noLaunches(_ role: GateRole, path: String, folder: URL) -> GateError {
        let samplesPath = folder.appendingPathComponent(ResultsFolder.FileName.samples).path
        return .noLaunches(
            path: path, role: role, reason: "\(samplesPath) holds no launches (the run measured nothing). Run it again."
        )
    }
}

extension GateError: LocalizedError {
    /// What went wrong and how to fix it, in one or two sentences.
    package var errorDescription: String? {
        switch self {
        case .baselineNotFound(let path):
            return "Baseline not found at \(path). Pass the results folder (or its summary.json) of a run to compare "
                + "against, e.g. one kept from the main branch; on the first build record one with "
                + "`launchbench run APP --output \(path)`."
        case .noLaunches(let path, let role, let reason):
            return "The \(role.rawValue) at \(path) cannot be compared: \(reason)"
        }
    }
}

/// One side of a comparison, read from a results folder or its `summary.json`.
package struct GateInput: Sendable {
    /// The path as the user gave it.
    package var path: String
    /// The results folder that was read (the one holding `summary.json` when that file was given).
    package var folder: ResultsFolder
    /// The bundle id of the app measured (run.json's, else the most frequent in the samples).
    package var appBundleID: String?
    /// The launches of that app.
    package var launches: GateLaunches
    /// The launches of other apps in the same run (`--reference-app`).
    var referenceLaunches: GateLaunches
    /// Why DIR/reference/ held launches that could not be read (the gaps are then missing, not zero).
    var referenceProblem: String? = nil
    /// An A/B run's base build (DIR/base/, `run NEW --against BASE`); `launches` are the new build's. `nil`
    /// in any other folder.
    package var baseBuild: GateInput.BaseBuild? = nil

    /// Reads a side. `summary.json` holds statistics only, so the launches come from the
    /// `samples.jsonl` next to it (a results folder is the unit to keep as a baseline).
    /// - Parameters:
    ///   - role: `baseline` or `current`, for messages.
    /// - Throws: `GateError.baselineNotFound` for a missing baseline, `GateError.noLaunches` for a
    ///   folder without launches, `LaunchBenchError` for a missing current folder or unreadable files.
    package static func load(path: String, role: GateRole) throws -> GateInput {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            if role == .baseline { throw GateError.baselineNotFound(path: path) }
            throw LaunchBenchError.fileNotFound(path: path, what: "Results folder of the \(role.rawValue) run")
        }
        let folderURL = isDirectory.boolValue ? url : url.deletingLastPathComponent()
        if !isDirectory.boolValue, url.pathExtension.lowercased() != "json" {
            throw GateError.noLaunches(
                path: path, role: role,
                reason:
                    "it is neither a results folder nor a summary.json. Pass the --output folder of `launchbench run`.")
        }
        let samplesURL = folderURL.appendingPathComponent(ResultsFolder.FileName.samples)
        guard FileManager.default.fileExists(atPath: samplesURL.path) else {
            throw GateError.noLaunches(
                path: path, role: role,
                reason: "\(samplesURL.path) is missing. The gate tests each launch, not only the summary statistics: "
                    + "keep the whole results folder (samples.jsonl with summary.json) as the baseline.")
        }
        // Each launch is counted as it is read and the folder's summary kept, not its samples: a baseline of
        // 500,000 launches then costs what `report` of it costs.
        var counts: [String: GateLaunches.Counts] = [:]
        let folder = try ResultsFolder.load(folderURL) {
            counts[$0.appBundleID, default: GateLaunches.Counts()].add($0)
        }
        guard let (app, ofApp) = counts.first.map({ ($0.key, $0.value) }) else {
            throw GateError.noLaunches(role, path: path, folder: folderURL)
        }
        guard counts.count == 1 else {
            // Older runs kept `--reference-app`'s launches in the same file: the summary mixes the apps, so
            // this rare file is read again, its samples kept.
            let (folder, samples) = try ResultsFolder.loadSamples(folderURL)
            return GateInput(path: path, folder: folder, samples: samples)
        }
        let (reference, problem) = referenceLaunches(folder, others: [])
        return GateInput(
            path: path, folder: folder, appBundleID: folder.manifest?.app?.bundleID ?? app,
            launches: GateLaunches(summary: folder.summary, counts: ofApp), referenceLaunches: reference,
            referenceProblem: problem, baseBuild: try BaseBuild.load(folder))
    }

    static func mostFrequentApp(_ samples: [Sample]) -> String? {
        mostFrequentApp(counts: Dictionary(grouping: samples, by: \.appBundleID).mapValues(\.count))
    }

    /// The bundle id with the most launches in `counts` (ties: the first by name); `nil` when empty.
    static func mostFrequentApp(counts: [String: Int]) -> String? {
        counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
    }
}

extension GateInput {
    /// A side from a folder already read, e.g. the run's own: the app's launches, and the others (with those in
    /// DIR/reference/, where `--reference-app` runs keep the reference app's launches) as reference samples.
    package init(path: String, folder: ResultsFolder, samples: [Sample]) {
        let appBundleID = folder.manifest?.app?.bundleID ?? Self.mostFrequentApp(samples)
        let ofApp = samples.filter { $0.appBundleID == appBundleID }
        let (reference, problem) = Self.referenceLaunches(
            folder, others: ofApp.isEmpty ? [] : samples.filter { $0.appBundleID != appBundleID })
        self.init(
            path: path, folder: folder, appBundleID: appBundleID,
            launches: GateLaunches(samples: ofApp.isEmpty ? samples : ofApp), referenceLaunches: reference,
            referenceProblem: problem, baseBuild: try? BaseBuild.load(folder))
    }

    /// The reference app's launches: `others` (of the run's own file) and those in DIR/reference/, where
    /// `--reference-app` runs keep them; with why they could not be read, if so.
    static func referenceLaunches(_ folder: ResultsFolder, others: [Sample]) -> (GateLaunches, String?) {
        let referenceURL = folder.url.appendingPathComponent(RunManifest.referenceFolderName)
        guard
            FileManager.default.fileExists(
                atPath: referenceURL.appendingPathComponent(ResultsFolder.FileName.samples).path)
        else { return (GateLaunches(samples: others), nil) }
        do {
            guard others.isEmpty else {
                return (GateLaunches(samples: others + (try ResultsFolder.loadSamples(referenceURL).samples)), nil)
            }
            var counts = GateLaunches.Counts()
            let referenceFolder = try ResultsFolder.load(referenceURL) { counts.add($0) }
            return (GateLaunches(summary: referenceFolder.summary, counts: counts), nil)
        } catch {
            return (
                GateLaunches(samples: others),
                "The reference app's launches could not be read from \(referenceURL.path): "
                    + error.localizedDescription
            )
        }
    }
}
