import Foundation

/// Folders only this user can write, for what launchbench writes to or runs from a shared temporary folder
/// (`/tmp` on a CI host is shared by every user): helper scripts on a helper's `PYTHONPATH`, helper logs, lock
/// files. A folder another user owns or can write could hold a planted module that would run as us.
package enum PrivateFolder {
    /// Creates `url` with mode 0700 unless it exists, then checks that it is a real folder (not a symlink),
    /// owned by this user, that no one else can read or write.
    /// - Throws: ``LaunchBenchError/unsafeFolder(path:reason:)`` when it fails a check;
    ///   ``LaunchBenchError/cannotWrite(path:reason:)`` when it cannot be created.
    @discardableResult
    package static func ensure(_ url: URL) throws -> URL {
        if mkdir(url.path, 0o700) != 0 && errno != EEXIST {
            throw LaunchBenchError.cannotWrite(
                path: url.path, reason: "the folder cannot be created (\(String(cString: strerror(errno))))")
        }
        var status = stat()
        guard lstat(url.path, &status) == 0 else {
            throw LaunchBenchError.cannotWrite(
                path: url.path, reason: "the folder cannot be read (\(String(cString: strerror(errno))))")
        }
        if let problem = problem(with: status) {
            throw LaunchBenchError.unsafeFolder(path: url.path, reason: problem)
        }
        return url
    }

    /// Why a folder with this `lstat` is not private, or `nil` when it is.
    static func problem(with status: stat) -> String? {
        if status.st_mode & S_IFMT == S_IFLNK { return "it is a symbolic link" }
        if status.st_mode & S_IFMT != S_IFDIR { return "it is not a folder" }
        if status.st_uid != geteuid() { return "it belongs to user id \(status.st_uid), not to you (\(geteuid()))" }
        if status.st_mode & 0o077 != 0 {
            return "its mode is \(String(status.st_mode & 0o777, radix: 8)), so other users can reach it (need 700)"
        }
        return nil
    }

    /// `$TMPDIR/launchbench-<uid>` (or `/tmp/…`), created 0700 and checked: the parent of every per-user file.
    /// The `run-<pid>` folders of runs that died (`kill -9`) are removed from it here, so a run that keeps its
    /// device locks here (no `XDG_RUNTIME_DIR`) cleans them too, not only the next one that starts a helper.
    static func userTemporary(environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> URL
    {
        let folder = try ensure(userTemporaryLocation(environment: environment))
        removeStaleRuns(in: folder)
        return folder
    }

    /// Where ``userTemporary(environment:)`` is, without creating it.
    private static func userTemporaryLocation(environment: [String: String]) -> URL {
        let temporary = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return URL(fileURLWithPath: temporary, isDirectory: true).appendingPathComponent("launchbench-\(geteuid())")
    }

    /// Where ``run()`` is, without creating it (for a default that is used only after `run()` was called).
    package static var runLocation: URL {
        userTemporaryLocation(environment: ProcessInfo.processInfo.environment).appendingPathComponent(
            "run-\(getpid())")
    }

    /// This process's own folder, ``runLocation``: created fresh on first use, removed when the process exits.
    /// Folders left by runs that died (`kill -9`) are removed when it is created.
    package static func run() throws -> URL {
        try runFolder.withLock { folder in
            if let folder { return folder }
            _ = try userTemporary()  // also removes dead runs' folders
            let url = runLocation
            try? FileManager.default.removeItem(at: url)  // a dead process's with the same pid
            try ensure(url)
            folder = url
            atexit { PrivateFolder.removeRunFolder() }
            return url
        }
    }

    /// Removes this process's run folder now (also done at exit).
    static func removeRunFolder() {
        guard let url = runFolder.current else { return }
        try? FileManager.default.removeItem(at: url)
    }

    /// Removes `run-<pid>` folders in `parent` whose process is gone.
    static func removeStaleRuns(in parent: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
        for name in names where name.hasPrefix("run-") {
            guard let pid = Int32(name.dropFirst(4)), pid != getpid(), !isAlive(pid) else { continue }
            try? FileManager.default.removeItem(at: parent.appendingPathComponent(name))
        }
    }

    private static func isAlive(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno == EPERM }

    private static let runFolder = Locked<URL?>(nil)
}
