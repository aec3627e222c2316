import Foundation
import LaunchBench

/// Where a helper process's output goes: `folder/<name>.log` for the first helper, `<name>-2.log`, `-3`… for
/// the ones started after it died, so a restarted helper never overwrites what the dead one said.
enum HelperLog {
    /// The first of `name.log`, `name-2.log`, … in `folder` that does not exist yet, created empty (the
    /// folder too).
    /// - Throws: `LaunchBenchError.cannotWrite` naming the file that cannot be created.
    static func next(in folder: URL, named name: String) throws -> URL {
        // The run's private folder first: made later, it would replace a default log folder inside it (and
        // the log claimed here) with a fresh one.
        _ = try PrivateFolder.run()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw LaunchBenchError.cannotWrite(path: folder.path, reason: error.localizedDescription)
        }
        var number = 1
        while true {
            let url = folder.appendingPathComponent(number == 1 ? "\(name).log" : "\(name)-\(number).log")
            // O_EXCL: claims the name even when two helpers of one device start at once.
            let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 {
                close(fd)
                return url
            }
            guard errno == EEXIST else {
                throw LaunchBenchError.cannotWrite(
                    path: url.path, reason: "the helper's log cannot be created (\(String(cString: strerror(errno))))")
            }
            number += 1
        }
    }
}

extension HelperLog {
    /// The last `lines` lines of `log` after `offset`, without the command line launchbench wrote and without
    /// what `skipping` marks as noise, joined with ` | ` and cut to `characters`, for an error text.
    static func tail(
        of log: URL, since offset: UInt64 = 0, lines: Int, characters: Int,
        skipping: (Substring) -> Bool = { _ in false }
    ) -> String {
        guard let handle = try? FileHandle(forReadingFrom: log) else { return "" }
        defer { try? handle.close() }
        handle.seek(toFileOffset: offset)
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let kept = text.split(separator: "\n").filter { !$0.hasPrefix("$ ") && !skipping($0) }
        return String(kept.suffix(lines).joined(separator: " | ").suffix(characters))
    }

    /// The log's size now, to quote only what is printed after it (`tail(of:since:…)`).
    static func size(of log: URL) -> UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: log.path))?[.size] as? NSNumber)?.uint64Value ?? 0
    }
}
