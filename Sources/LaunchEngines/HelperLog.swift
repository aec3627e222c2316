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
