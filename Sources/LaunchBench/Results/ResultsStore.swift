import Foundation

/// Writes a run's results folder as the run goes: `run.json`, `samples.jsonl`, and the raw logs.
///
/// Every sample is written and flushed to disk (fsync) before `append` returns, and logs are written
/// as the bytes arrive, so a crash or Ctrl-C loses nothing already measured. A launch's other files (its log,
/// raw kdebug and timeline) are whole when they appear but not flushed: the kernel writes them out after a
/// crash of launchbench, only a power cut can lose the last ones, and each fsync there sat between one launch
/// and the next (about 0.5 ms each, four a launch; Documentation/Performance.md).
package actor ResultsStore {
    /// The folder written to (the run's `--output`); log paths in the samples are relative to it.
    package nonisolated let folder: URL
    private var samples: FileHandle
    private let encoder = JSONCoding.encoder()
    /// Disk space held back for the last `run.json`: on a full disk it is given up so the run's end
    /// (`interrupted`, outcomes) can still be recorded. Removed by `close`.
    private let reserve: URL

    /// The reserve's file name (see `OutputFolder.writtenEntries`) and size.
    static let reserveFileName = ".launchbench-reserve"
    static let reserveBytes = 256 * 1024

    /// Opens (creating) `samples.jsonl` in `folder`, which must exist (see `OutputFolder.prepare`).
    /// - Throws: `LaunchBenchError.cannotWrite`.
    package init(folder: URL) throws {
        self.folder = folder
        reserve = folder.appendingPathComponent(Self.reserveFileName)
        try? Data(count: Self.reserveBytes).write(to: reserve)
        let url = folder.appendingPathComponent("samples.jsonl")
        if !FileManager.default.fileExists(atPath: url.path) {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw LaunchBenchError.cannotWrite(path: url.path, reason: "the file cannot be created")
            }
        }
        do {
            samples = try FileHandle(forWritingTo: url)
            try samples.seekToEnd()
        } catch {
            throw LaunchBenchError.cannotWrite(path: url.path, reason: error.localizedDescription)
        }
    }

    /// Writes `run.json` atomically (a reader never sees half a file; a failed write leaves the previous one).
    /// When the disk is full, the reserve is given up and the write tried once more.
    package func writeManifest(_ manifest: RunManifest) throws {
        let url = folder.appendingPathComponent("run.json")
        do {
            try manifest.write(to: url)
        } catch LaunchBenchError.cannotEncode(let path, let reason) {
            throw LaunchBenchError.cannotEncode(path: path, reason: reason)
        } catch {
            guard (try? FileManager.default.removeItem(at: reserve)) != nil else { throw error }
            try manifest.write(to: url)
        }
    }

    /// Appends one line to `samples.jsonl` and flushes it to disk before returning. A write that fails (a full
    /// disk) is cut back off, so the file keeps whole lines only: its last good state.
    package func append(_ sample: Sample) throws {
        try append(contentsOf: [sample])
    }

    /// Appends several samples (e.g. `merge`'s) with one flush to disk; on failure none of them stays.
    package func append(contentsOf newSamples: [Sample]) throws {
        let goodLength = try? samples.offset()
        do {
            var lines = Data()
            for sample in newSamples {
                lines.append(try encoder.encode(sample))
                lines.append(0x0A)
            }
            try samples.write(contentsOf: lines)
            try samples.synchronize()
        } catch {
            if let goodLength {
                try? samples.truncate(atOffset: goodLength)
                _ = try? samples.seekToEnd()
            }
            throw LaunchBenchError.cannotWrite(
                path: folder.appendingPathComponent("samples.jsonl").path, reason: error.localizedDescription)
        }
    }

    /// Rewrites the samples in `samples.jsonl` that `matches` picks, as `change` leaves them, and returns them
    /// (a launch re-judged after the fact). The run keeps no copy of its samples, so they are read back from
    /// the file. The new file is written beside it, flushed, then renamed over it, so a crash leaves the old
    /// file or the new one, never half of one. Appends continue on the new file.
    package func rewrite(where matches: (Sample) -> Bool, _ change: (inout Sample) -> Void) throws -> [Sample] {
        let url = folder.appendingPathComponent("samples.jsonl")
        let temporary = folder.appendingPathComponent(".samples.jsonl.rewrite")
        var changed: [Sample] = []
        do {
            let decoder = JSONCoding.decoder()
            var rewritten = Data()
            for line in try Data(contentsOf: url).split(separator: 0x0A) {
                if var sample = try? decoder.decode(Sample.self, from: Data(line)), matches(sample) {
                    change(&sample)
                    changed.append(sample)
                    rewritten.append(try encoder.encode(sample))
                } else {
                    rewritten.append(line)
                }
                rewritten.append(0x0A)
            }
            try rewritten.write(to: temporary)
            let handle = try FileHandle(forWritingTo: temporary)
            try handle.synchronize()
            try handle.close()
            // rename(2) replaces the file in one step (Foundation's replaceItemAt moves the old file away first).
            guard rename(temporary.path, url.path) == 0 else {
                throw LaunchBenchError.cannotWrite(path: url.path, reason: String(cString: strerror(errno)))
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw LaunchBenchError.cannotWrite(path: url.path, reason: error.localizedDescription)
        }
        // Appends go to the new file (the old handle still points at the replaced one).
        do {
            let reopened = try FileHandle(forWritingTo: url)
            try reopened.seekToEnd()
            try? samples.close()
            samples = reopened
        } catch {
            throw LaunchBenchError.cannotWrite(path: url.path, reason: error.localizedDescription)
        }
        return changed
    }

    /// Creates `logs/<UDID>/NNNN-cold.log` (or `-warm`, `-warm2` …) for one launch.
    /// - Throws: `LaunchBenchError.cannotWrite`.
    package nonisolated func makeLaunchLog(udid: String, iteration: Int, kind: LaunchKind, launchIndex: Int) throws
        -> LaunchLog
    {
        let relative = Self.logPath(udid: udid, iteration: iteration, kind: kind, launchIndex: launchIndex)
        return try LaunchLog(url: folder.appendingPathComponent(relative), relativePath: relative)
    }

    /// The log's path relative to the results folder.
    package static func logPath(udid: String, iteration: Int, kind: LaunchKind, launchIndex: Int) -> String {
        let safeUDID = String(udid.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" })
        let number = String(format: "%04d", iteration)
        let suffix: String
        switch kind {
        case .cold: suffix = "cold"
        case .warm: suffix = launchIndex <= 1 ? "warm" : "warm\(launchIndex)"
        }
        return "logs/\(safeUDID)/\(number)-\(suffix).log"
    }

    /// Writes one launch's timeline (Chrome trace-event JSON) as `traces/UDID/0001-cold.json`, beside its log.
    /// - Returns: the path relative to the results folder.
    nonisolated func writeTrace(
        _ data: Data, udid: String, iteration: Int, kind: LaunchKind, launchIndex: Int
    ) throws -> String {
        let relative = Self.tracePath(udid: udid, iteration: iteration, kind: kind, launchIndex: launchIndex)
        let url = folder.appendingPathComponent(relative)
        do {
            try Self.writeWhole(data, to: url)
        } catch {
            throw LaunchBenchError.cannotWrite(path: url.path, reason: error.localizedDescription)
        }
        return relative
    }

    /// A launch timeline's path relative to the results folder (`traces/UDID/0001-cold.json`).
    package static func tracePath(udid: String, iteration: Int, kind: LaunchKind, launchIndex: Int) -> String {
        let log = logPath(udid: udid, iteration: iteration, kind: kind, launchIndex: launchIndex)
        return "traces/" + log.dropFirst("logs/".count).dropLast(".log".count) + ".json"
    }

    /// Writes one launch's raw kdebug (RAW_VERSION2) as `kdebug/UDID/0001-cold.kdebug`, beside its log.
    /// - Returns: the path relative to the results folder.
    nonisolated func writeRawKdebug(
        _ bytes: [UInt8], udid: String, iteration: Int, kind: LaunchKind, launchIndex: Int
    ) throws -> String {
        let log = Self.logPath(udid: udid, iteration: iteration, kind: kind, launchIndex: launchIndex)
        let relative = "kdebug/" + log.dropFirst("logs/".count).dropLast(".log".count) + ".kdebug"
        let url = folder.appendingPathComponent(relative)
        do {
            try Self.writeWhole(Data(bytes), to: url)
        } catch {
            throw LaunchBenchError.cannotWrite(path: url.path, reason: error.localizedDescription)
        }
        return relative
    }

    /// Writes a launch's file beside its final name and renames it into place (creating its folder), so a reader
    /// never sees half of it; not flushed to disk (see the type's comment).
    private nonisolated static func writeWhole(_ data: Data, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial")
        do {
            let handle = try openForWriting(temporary)
            try handle.write(contentsOf: data)
            try handle.close()
            guard rename(temporary.path, url.path) == 0 else {
                throw LaunchBenchError.cannotWrite(path: url.path, reason: String(cString: strerror(errno)))
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }

    /// Opens `url` for writing from its start, creating it: open(2) rather than FileManager.createFile, which
    /// writes an empty file aside and renames it, or Data.write, which fsyncs.
    /// - Throws: `LaunchBenchError.cannotWrite` naming the file.
    nonisolated static func openForWriting(_ url: URL) throws -> FileHandle {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw LaunchBenchError.cannotWrite(path: url.path, reason: String(cString: strerror(errno)))
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Closes `samples.jsonl` and frees the reserve.
    package func close() {
        try? samples.synchronize()
        try? samples.close()
        try? FileManager.default.removeItem(at: reserve)
    }
}

/// One launch's raw output file, written verbatim as the bytes arrive (from the driver's thread).
package final class LaunchLog: Sendable {
    /// Where the log is written: the results folder + `relativePath`.
    package let url: URL
    /// Relative to the results folder, as `Sample.logPath` records it.
    package let relativePath: String
    private let state: Locked<(handle: FileHandle?, failure: String?)>

    init(url: URL, relativePath: String) throws {
        self.url = url
        self.relativePath = relativePath
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            state = Locked((try ResultsStore.openForWriting(url), nil))
        } catch let error as LaunchBenchError {
            throw error
        } catch {
            throw LaunchBenchError.cannotWrite(path: url.path, reason: error.localizedDescription)
        }
    }

    /// Appends bytes; a write error stops logging but never the launch (the sample still records the values,
    /// and `failure` says why the log is incomplete).
    package func write(_ bytes: [UInt8]) {
        state.withLock { state in
            guard let handle = state.handle, !bytes.isEmpty else { return }
            do {
                try handle.write(contentsOf: Data(bytes))
            } catch {
                state.handle = nil
                state.failure = "\(relativePath) is incomplete: writing it failed (\(error.localizedDescription))"
            }
        }
    }

    /// Why the log stopped being written (a full disk…), `nil` while it is complete.
    package var failure: String? { state.withLock { $0.failure } }

    /// Closes (not flushed to disk: see `ResultsStore`); later writes are ignored.
    package func close() {
        state.withLock { state in
            try? state.handle?.close()
            state.handle = nil
        }
    }

    deinit { state.withLock { try? $0.handle?.close() } }
}
