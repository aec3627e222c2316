import Foundation

/// A results folder read back: `run.json` (when there is one) and the statistics of every sample of
/// `samples.jsonl`, with notes on what could not be read.
///
/// The samples are read one at a time and not kept (a folder may hold 100,000 launches): what the
/// reports need is in `summary`, `firstSample` and `earliestStart`; `load(_:each:)` hands every
/// sample to a caller that streams it on (samples.csv, the gate's and trend's counts), and `loadSamples`
/// keeps them all for merge and the run's own gate, which already hold them.
///
/// Reading is tolerant because the folder may come from an interrupted or remote run: a missing
/// `run.json` is a note (the report is made from the samples alone), and a line of
/// `samples.jsonl` that is not a sample (typically the last one, cut off when the run was
/// killed mid-write) is skipped with a note naming the line.
package struct ResultsFolder: Sendable {
    /// File names inside the folder (the stable interface, see ARCHITECTURE.md).
    package enum FileName {
        /// What was measured, where and how (`RunManifest`).
        package static let manifest = "run.json"
        /// One JSON line per launch (`Sample`), appended as launches finish.
        package static let samples = "samples.jsonl"
        /// The same launches as CSV rows.
        package static let samplesCSV = "samples.csv"
        /// Statistics per device × kind × metric.
        package static let summaryCSV = "summary.csv"
        /// Initializer times per device × kind × image.
        package static let imagesCSV = "images.csv"
        /// The summary and images as one JSON document (what a baseline reads).
        package static let summaryJSON = "summary.json"
        /// The self-contained HTML report.
        static let reportHTML = "report.html"
    }

    /// The folder read; `Sample.logPath` and the `FileName`s are relative to it.
    package var url: URL
    /// `nil` when `run.json` is missing or unreadable (see `notes`).
    package var manifest: RunManifest?
    /// What the reader had to skip or guess, in words for the user; shown in every report.
    package var notes: [String]
    /// The statistics of the samples, devices in `run.json`'s order, with its device outcome notes as remarks.
    package private(set) var summary: RunSummary
    /// The first sample in file order (the app and run when `run.json` does not say); `nil` when there is none.
    private(set) var firstSample: Sample?
    /// When the earliest launch started; `nil` without samples.
    private(set) var earliestStart: Date?

    /// A folder's contents as read (or made by hand in tests).
    package init(url: URL, manifest: RunManifest?, samples: [Sample], notes: [String] = []) {
        var accumulator = RunSummary.Accumulator()
        for sample in samples { accumulator.add(sample) }
        self.init(
            url: url, manifest: manifest, notes: notes, accumulator: accumulator, firstSample: samples.first,
            earliestStart: samples.map(\.startedAt).min())
    }

    private init(
        url: URL, manifest: RunManifest?, notes: [String], accumulator: RunSummary.Accumulator, firstSample: Sample?,
        earliestStart: Date?
    ) {
        self.url = url
        self.manifest = manifest
        self.notes = notes
        self.firstSample = firstSample
        self.earliestStart = earliestStart
        var remarks: [String: [String]] = [:]
        for outcome in manifest?.deviceOutcomes ?? [] {
            if let engine = outcome.engine {
                remarks[outcome.udid, default: []].append(
                    "Launch engine: \(engine)" + (outcome.engineReason.map { " (\($0))." } ?? "."))
            }
            if let launcher = outcome.launcher {
                remarks[outcome.udid, default: []].append(Self.launcherRemark(launcher, engine: outcome.engine))
            }
            switch outcome.premainSource {
            case .kdebug?:
                remarks[outcome.udid, default: []].append(
                    "Pre-main phases from kdebug: dyld's own timing events, read through the instruments service "
                        + "(one timeline per launch in \(Self.tracesFolder(outcome.udid)), Chrome trace format: "
                        + "Perfetto or chrome://tracing).")
            case .dyldStatistics?:
                remarks[outcome.udid, default: []].append(
                    "Pre-main phases from dyld's printed statistics (DYLD_PRINT_STATISTICS).")
            case .notMeasured?:
                remarks[outcome.udid, default: []].append(
                    "No pre-main phases (premain_source none): dyld's kdebug events could not be read; the note "
                        + "below says why.")
            case nil:
                break
            }
            if let conditions = outcome.conditions?.remark { remarks[outcome.udid, default: []].append(conditions) }
            remarks[outcome.udid, default: []] += outcome.notes
        }
        summary = accumulator.summary(deviceOrder: manifest?.devices.map(\.udid) ?? [], remarks: remarks)
    }

    /// How a device's app was launched (`launcher` in run.json), for every report's device section.
    static func launcherRemark(_ launcher: LaunchMethod, engine: String?) -> String {
        switch launcher {
        case .processControl:
            return "Launcher: processcontrol (the instruments service's process control; no debugger attached)."
        case .debugserver where engine == LaunchEngine.devicectl.rawValue:
            return "Launcher: devicectl (`devicectl device process launch`)."
        case .debugserver:
            return "Launcher: debugserver (the app runs under a debugger)."
        }
    }

    /// Where a device's launch timelines are, relative to the results folder.
    static func tracesFolder(_ udid: String) -> String {
        let log = ResultsStore.logPath(udid: udid, iteration: 1, kind: .cold, launchIndex: 0)
        return "traces/" + log.dropFirst("logs/".count).prefix { $0 != "/" } + "/"
    }

    /// Reads `run.json` and `samples.jsonl` from `url`, summarising the samples without keeping them.
    /// - Throws: `LaunchBenchError.fileNotFound` when the folder or its `samples.jsonl` is missing,
    ///   `.unreadableResults` when `samples.jsonl` cannot be read at all.
    package static func load(_ url: URL) throws -> ResultsFolder {
        try load(url) { _ in }
    }

    /// `load(_:)` that also keeps every sample, in file order: for the readers that need whole samples
    /// (merge, a file mixing apps); their memory grows with the folder, less with the texts shared
    /// (`SampleInterner`).
    package static func loadSamples(_ url: URL) throws -> (folder: ResultsFolder, samples: [Sample]) {
        var samples: [Sample] = []
        var interner = SampleInterner()
        let folder = try load(url) { samples.append(interner.intern($0)) }
        return (folder, samples)
    }

    /// `load(_:)` that hands every sample read to `each`, in file order, as it is read (exports stream
    /// samples.csv this way).
    /// - Throws: what `load(_:)` throws, and what `each` throws.
    package static func load(_ url: URL, each: (Sample) throws -> Void) throws -> ResultsFolder {
        try requireFolder(url)
        var notes: [String] = []
        let manifestURL = url.appendingPathComponent(FileName.manifest)
        var manifest: RunManifest?
        if FileManager.default.fileExists(atPath: manifestURL.path) {
            do {
                manifest = try RunManifest.read(from: manifestURL)
            } catch {
                notes.append(
                    "run.json could not be read (\(error.localizedDescription)); reporting from the samples alone.")
            }
        } else {
            notes.append("run.json is missing; reporting from samples.jsonl alone (no app, host or option details).")
        }

        let samplesURL = url.appendingPathComponent(FileName.samples)
        guard FileManager.default.fileExists(atPath: samplesURL.path) else {
            throw LaunchBenchError.fileNotFound(
                path: samplesURL.path, what: "samples.jsonl (written by `launchbench run` as it measures)")
        }
        var accumulator = RunSummary.Accumulator()
        var firstSample: Sample?
        var earliestStart: Date?
        var measured: Set<String> = []
        let sampleNotes = try readSamples(samplesURL, valueLimitMs: valueLimitMs(manifest)) { parsed in
            let sample = recoveringInitializers(parsed, folder: url)
            accumulator.add(sample)
            if firstSample == nil { firstSample = sample }
            earliestStart = min(earliestStart ?? sample.startedAt, sample.startedAt)
            measured.insert(sample.deviceUDID)
            try each(sample)
        }
        notes += sampleNotes
        if firstSample == nil { notes.append("samples.jsonl holds no launches yet.") }
        if let manifest {
            if manifest.interrupted == true {
                notes.append("The run was interrupted before every launch was made; these are the launches measured.")
            } else if manifest.endedAt == nil {
                notes.append(
                    "run.json has no end time: the run was interrupted or is still going; these are the launches"
                        + " measured so far.")
            }
            notes += deviceNotes(manifest, measured: measured)
        }
        return ResultsFolder(
            url: url, manifest: manifest, notes: notes, accumulator: accumulator, firstSample: firstSample,
            earliestStart: earliestStart)
    }

    /// - Throws: `LaunchBenchError.fileNotFound` when `url` is not a folder.
    static func requireFolder(_ url: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw LaunchBenchError.fileNotFound(
                path: url.path, what: "Results folder (the --output of `launchbench run`)")
        }
    }

    /// Devices without a single sample that were not measured, in words: nothing else in a report
    /// would mention them. (Devices with samples get their outcome as remarks in their section.)
    private static func deviceNotes(_ manifest: RunManifest, measured: Set<String>) -> [String] {
        (manifest.deviceOutcomes ?? []).filter { !measured.contains($0.udid) }.compactMap { outcome in
            let what: String
            switch outcome.outcome {
            case .running, .measured: return nil
            case .skipped: what = "was skipped"
            case .lost: what = "disappeared during the run"
            case .stopped: what = "was given up early"
            case .interrupted: what = "was not finished (run interrupted)"
            }
            let name =
                manifest.devices.first { $0.udid == outcome.udid }.map { "\($0.name) (\(outcome.udid))" }
                ?? outcome.udid
            let why = outcome.notes.isEmpty ? "" : ": " + outcome.notes.joined(separator: " ")
            return "\(name) \(what)\(why)"
        }
    }

    /// The largest launch time a sample of the run can hold: its `--timeout` and a minute for the kill and
    /// the grace (every launch metric is measured within one launch); the ceiling's when run.json does not say. The
    /// timeout counts up to `OptionCeilings.timeoutSeconds` only: `run` refuses more, so a larger one in
    /// run.json was not written by a run and must not let impossible values through.
    static func valueLimitMs(_ manifest: RunManifest?) -> Double {
        guard let timeout = manifest?.options?.timeoutSeconds, timeout.isFinite, timeout > 0 else {
            return Sample.defaultValueLimitMs
        }
        return (min(timeout, OptionCeilings.timeoutSeconds) + 60) * 1000
    }

    /// Decodes JSON Lines: one sample per line, blank lines ignored, bad lines skipped with a note — among
    /// them launch times that cannot be real (negative, not finite, beyond `valueLimitMs`).
    package static func parseSamples(_ data: Data, valueLimitMs: Double = Sample.defaultValueLimitMs) -> (
        samples: [Sample], notes: [String]
    ) {
        var samples: [Sample] = []
        var reader = SampleLines(valueLimitMs: valueLimitMs)
        reader.feed(data) { samples.append($0) }
        reader.finish { samples.append($0) }
        return (samples, reader.notes)
    }

    /// `parseSamples` over a file read in 1 MiB pieces, each sample handed to `each` as it is decoded: the
    /// file's bytes never sit in memory whole. Returns the notes.
    /// - Throws: `LaunchBenchError.unreadableResults` when the file cannot be read; what `each` throws.
    static func readSamples(_ url: URL, valueLimitMs: Double, each: (Sample) throws -> Void) throws -> [String] {
        let unreadable = { (error: any Error) in
            LaunchBenchError.unreadableResults(path: url.path, reason: error.localizedDescription)
        }
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch { throw unreadable(error) }
        defer { try? handle.close() }
        var reader = SampleLines(valueLimitMs: valueLimitMs)
        while true {
            let chunk: Data?
            do { chunk = try handle.read(upToCount: 1 << 20) } catch { throw unreadable(error) }
            guard let chunk, !chunk.isEmpty else { break }
            try reader.feed(chunk, each)
        }
        try reader.finish(each)
        return reader.notes
    }

    /// JSON Lines decoded as the bytes arrive, split anywhere. A launch already read (same run, device, app,
    /// iteration, kind and launch index: a line copied twice, a file appended to itself) is skipped with a
    /// note, so every reader, the gate among them, counts each launch once.
    private struct SampleLines {
        let decoder = JSONCoding.decoder()
        var notes: [String] = []
        private var carry = Data()
        private var lineNumber = 0
        /// The line each launch was first read from.
        private var firstLine: [LaunchKey: Int] = [:]
        /// Repeated lines named in a note of their own, and those beyond (a file appended to itself would
        /// otherwise give a note per launch).
        private var namedRepeatCount = 0
        private var unnamedRepeats = 0
        private static let namedRepeats = 10

        /// Run ids, UDIDs and bundle ids as small numbers: a file holds few of each, and the keys of 100,000
        /// launches then take a few MB, not a string allocation each.
        private var names: [String: Int] = [:]

        private struct LaunchKey: Hashable {
            let run: Int
            let device: Int
            /// Older runs kept `--reference-app`'s launches in the same file, with the same slots.
            let app: Int
            let iteration: Int
            let kind: LaunchKind
            let launchIndex: Int
        }

        init(valueLimitMs: Double) {
            decoder.userInfo[Sample.valueLimitKey] = valueLimitMs
        }

        mutating func feed(_ bytes: Data, _ each: (Sample) throws -> Void) rethrows {
            carry.append(bytes)
            var start = carry.startIndex
            while let newline = carry[start...].firstIndex(of: 0x0A) {
                if let sample = decode(carry[start..<newline], cutOff: false) { try each(sample) }
                start = newline + 1
            }
            carry = Data(carry[start...])
        }

        /// The last line, when the file does not end with a line break (a run stopped while writing it).
        mutating func finish(_ each: (Sample) throws -> Void) rethrows {
            let last = carry
            carry = Data()
            if !last.isEmpty, let sample = decode(last, cutOff: true) { try each(sample) }
            if unnamedRepeats > 0 {
                notes.append(
                    "samples.jsonl: \(unnamedRepeats) more lines repeat launches already read; skipped (each launch counts "
                        + "once).")
                unnamedRepeats = 0
            }
        }

        private mutating func decode(_ line: Data, cutOff: Bool) -> Sample? {
            lineNumber += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return nil }
            do {
                return firstReading(try decoder.decode(Sample.self, from: Data(line)))
            } catch {
                notes.append(
                    cutOff
                        ? "samples.jsonl line \(lineNumber) is cut off (the run was stopped while writing it); skipped."
                        : "samples.jsonl line \(lineNumber) is not a launch sample (\(ResultsFolder.describe(error))); skipped."
                )
                return nil
            }
        }

        private mutating func number(_ name: String) -> Int {
            if let known = names[name] { return known }
            names[name] = names.count
            return names.count - 1
        }

        /// `sample`, or `nil` with a note when its launch was read before.
        private mutating func firstReading(_ sample: Sample) -> Sample? {
            let key = LaunchKey(
                run: number(sample.runID), device: number(sample.deviceUDID), app: number(sample.appBundleID),
                iteration: sample.iteration, kind: sample.kind, launchIndex: sample.launchIndex)
            guard let first = firstLine[key] else {
                firstLine[key] = lineNumber
                return sample
            }
            if namedRepeatCount < Self.namedRepeats {
                namedRepeatCount += 1
                notes.append(
                    "samples.jsonl line \(lineNumber) repeats line \(first) (run \(sample.runID), device "
                        + "\(sample.deviceUDID), iteration \(sample.iteration), \(sample.kind.rawValue) launch "
                        + "\(sample.launchIndex)); skipped, each launch counts once. Remove the copied line.")
            } else {
                unnamedRepeats += 1
            }
            return nil
        }
    }

    /// Decoding errors in a user's words: which field, what was wrong.
    fileprivate static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _)?: return "no \"\(key.stringValue)\""
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?, .dataCorrupted(let context)?:
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? "not valid JSON" : "bad \"\(path)\": \(context.debugDescription)"
        default: return error.localizedDescription
        }
    }
}
