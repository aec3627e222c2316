import ArgumentParser
import Foundation
import LaunchBench

/// `launchbench merge SHARD… --output DIR`: one results folder from the shards of a sharded device lab.
struct Merge: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Merge the results folders of one build measured on several hosts into one results folder.",
        discussion: """
            A CI matrix with one job per device host leaves one results folder per host (a shard). merge writes \
            them as one run: samples.jsonl with every launch (each keeps its shard's run_id), run.json with every \
            device (its notes name the shard's folder, host, run and launchbench version), the logs, kdebug \
            timelines (traces/), raw kdebug files (kdebug/), the reference app's launches (reference/, from \
            run --reference-app: the gaps compare reports), and the exports (summary.*, images.csv, \
            report.html). compare, report and trend then read it like any results folder, and it can be kept as \
            the next baseline.

            Refused (exit 1): the same device (UDID) in two shards — one phone cannot be on two hosts at once — \
            one folder named twice (however spelled: ./A/, a symbolic link), and shards of different apps, of \
            different builds of one app or with different --reference-app apps. Shards measured by different \
            launchbench versions are merged with a note. A shard still being written is read up to its last \
            whole launch, with a note naming it.
            """
    )

    @Argument(help: ArgumentHelp("The shards: results folders of `launchbench run`.", valueName: "dir"))
    var shards: [String]

    @Option(
        name: .shortAndLong, help: ArgumentHelp("The merged results folder (new or empty).", valueName: "dir"),
        completion: .directory)
    var output: String

    @Flag(help: "Reuse an --output folder holding an earlier run's results (only launchbench's own files are removed).")
    var overwrite = false

    func validate() throws {
        guard shards.count >= 2 else {
            throw ValidationError("Name at least two results folders to merge (got \(shards.count)).")
        }
        try OutputPaths.checkFolder(output, option: "--output", example: "merged")
    }

    func run() async throws {
        let folders = try shards.map { try ResultsFolder.loadSamples(URL(fileURLWithPath: $0, isDirectory: true)) }
        let merged = try ResultsMerge(folders)
        let reference = try ResultsMerge.references(of: folders.map(\.folder.url))
        let base = try ResultsMerge.bases(of: folders.map(\.folder.url))
        for note in merged.notes + (reference?.notes ?? []) + (base?.notes ?? []) { Terminal.note("note: \(note)") }
        var manifest = merged.manifest
        if base != nil, let ab = folders.lazy.compactMap(\.folder.manifest).first(where: \.isABRun) {
            // A/B shards: the merged folder is an A/B run too, with its builds and paired design.
            manifest.builds = ab.builds
            manifest.pairedDesign = ab.pairedDesign
        }
        let destination = try OutputFolder.prepare(
            output: URL(fileURLWithPath: output, isDirectory: true),
            workingDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath), overwrite: overwrite,
            protected: folders.map(\.folder.url))
        let store = try ResultsStore(folder: destination)
        try await store.writeManifest(manifest)
        try await store.append(contentsOf: merged.samples)
        await store.close()
        let copyNotes = try ResultsMerge.copyDeviceFolders(from: folders.map(\.folder.url), to: destination)
        let referenceNotes =
            try await (reference?.write(into: destination) ?? []) + (base?.write(into: destination) ?? [])
        for note in copyNotes + referenceNotes { Terminal.note("note: \(note)") }
        if base != nil {
            _ = try ResultExports.writeAll(
                resultsFolder: destination.appendingPathComponent(RunManifest.baseFolderName))
        }
        let outcome = try ResultExports.writeAll(resultsFolder: destination)
        Terminal.note(
            "merge: \(merged.samples.count) launches of \(merged.manifest.devices.count) devices from "
                + "\(folders.count) shards in \(destination.path); wrote "
                + outcome.written.map(\.lastPathComponent).joined(separator: ", "))
    }
}
