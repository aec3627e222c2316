import Foundation

/// One benchmark at a time per device, across processes: a second run on a busy device would measure
/// "cold" launches warmed by the first one's and record them as valid samples.
///
/// Each device has a lock file in a per-user folder, held with `flock`, which the kernel releases when the
/// holder exits in any way (even SIGKILL): a file left by a dead process is simply taken over. The holder
/// writes its PID, command line and start time into the file, so a refused run can say who has the device.
///
/// Lock files have predictable names, and `LAUNCHBENCH_LOCK_DIR` may be a folder other users share, so a
/// lock file is opened without following a link (`O_NOFOLLOW`), then checked (`fstat`) to be a regular file
/// with one name: a planted link would have a root run write its pid into, and truncate, a file of the
/// link's choosing. One another user created is held (flock) but never written or truncated.
package final class DeviceLock: Sendable {
    /// Who holds a busy device, as read from its lock file.
    package struct Holder: Sendable, Hashable {
        /// The holder's process id.
        package var pid: Int32?
        /// Its command line.
        package var command: String?
        /// When it took the device (ISO 8601, UTC).
        package var since: String?

        /// `process 4242 (launchbench run App.app …) since 2026-11-22T21:00:00Z`.
        package var description: String {
            var text = pid.map { "process \($0)" } ?? "another launchbench process"
            if let command, !command.isEmpty { text += " (\(command))" }
            if let since { text += " since \(since)" }
            return text
        }
    }

    /// The device's UDID.
    package let udid: String
    /// The lock file.
    package let url: URL
    /// The open lock file, `-1` once released: closed exactly once even if two threads release together.
    private let descriptor: Locked<Int32>
    /// Whether the file is this user's, so that it may be written (holder) and emptied on release.
    private let ours: Bool

    private init(udid: String, url: URL, descriptor: Int32, ours: Bool) {
        self.udid = udid
        self.url = url
        self.descriptor = Locked(descriptor)
        self.ours = ours
    }

    /// Takes the lock of `udid`, or tells who holds it.
    /// - Parameters:
    ///   - scope: the usbmuxd the device is reached through (``scope(usbmuxd:systemBUID:)``): an emulated
    ///     lab's UDIDs repeat from lab to lab; `nil` locks by the UDID alone.
    ///   - folder: where lock files live (default `defaultFolder()`).
    /// - Returns: the lock (hold it until the run ends, then `release`), or the holder when the device is busy.
    /// - Throws: `LaunchBenchError.cannotWrite` when the lock file cannot be created; `.refusedPath` when it is
    ///   a link, not a regular file, or has another name too (a hard link).
    package static func acquire(
        udid: String, scope: String? = nil, folder: URL? = nil, command: String = describeCommand()
    ) throws -> Result<DeviceLock, Busy> {
        let folder = try folder ?? defaultFolder()
        let url = folder.appendingPathComponent(fileName(udid: udid, scope: scope))
        // O_NONBLOCK: a planted FIFO must not hang the open.
        let fd = open(url.path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o600)
        guard fd >= 0 else {
            let failure = errno
            if failure == ELOOP || failure == EMLINK {
                throw refused(url, "it is a symbolic link, and a lock is never written through a link")
            }
            throw LaunchBenchError.cannotWrite(
                path: url.path, reason: "the device lock cannot be created (\(String(cString: strerror(failure))))")
        }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            close(fd)
            throw LaunchBenchError.cannotWrite(
                path: url.path, reason: "the device lock cannot be read (\(errnoText()))")
        }
        if let problem = problem(with: status) {
            close(fd)
            throw refused(url, problem)
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = readHolder(fd)
            close(fd)
            return .failure(Busy(udid: udid, holder: holder))
        }
        // Ours now (a file whose holder died is unlocked, so a stale one is taken over here): say who we are,
        // in our own file only.
        let ours = status.st_uid == geteuid()
        if ours {
            let text = "\(getpid())\n\(command)\n\(timestamp())\n"
            _ = ftruncate(fd, 0)
            _ = text.utf8CString.withUnsafeBufferPointer { pwrite(fd, $0.baseAddress, $0.count - 1, 0) }
        }
        return .success(DeviceLock(udid: udid, url: url, descriptor: fd, ours: ours))
    }

    /// Why an opened lock file is not one to use (`fstat`), or `nil`.
    static func problem(with status: stat) -> String? {
        if status.st_mode & S_IFMT != S_IFREG { return "it is not a regular file" }
        if status.st_nlink != 1 {
            return "it has \(status.st_nlink) names (a hard link), so writing it would write another file too"
        }
        return nil
    }

    private static func refused(_ url: URL, _ reason: String) -> LaunchBenchError {
        .refusedPath(
            path: url.path, reason: reason,
            fix: "Someone may have planted it to redirect launchbench's writes: check who made it and remove it, "
                + "or set LAUNCHBENCH_LOCK_DIR to a folder only you can write.")
    }

    /// Releases the lock (process exit does it too). The file stays: removing it would race a new holder.
    package func release() {
        descriptor.withLock { descriptor in
            guard descriptor >= 0 else { return }
            if ours { _ = ftruncate(descriptor, 0) }
            close(descriptor)
            descriptor = -1
        }
    }

    deinit { release() }

    /// A busy device.
    package struct Busy: Error, Sendable, Hashable {
        /// The busy device.
        package var udid: String
        /// Who has it.
        package var holder: Holder

        /// `Device U1 is in use by process 4242 (…) since …`.
        package var description: String { "Device \(udid) is in use by \(holder.description)" }
    }

    /// `$LAUNCHBENCH_LOCK_DIR`, else `$XDG_RUNTIME_DIR/launchbench/locks` (when that folder is ours), else
    /// `$TMPDIR/launchbench-<uid>/locks` (per user, so another user's runs cannot block yours). The last two are
    /// created 0700 and checked to be this user's alone (`PrivateFolder`): in a shared folder another user could
    /// otherwise swap the lock files. `LAUNCHBENCH_LOCK_DIR` may be shared (CI users locking the same phones),
    /// so it is checked as `/tmp` is made: a real folder (not a link), owned by you or root, and sticky when
    /// others can write it (else they could rename a lock file away and plant their own).
    /// - Throws: `LaunchBenchError.cannotWrite`, `.unsafeFolder` or `.refusedPath` naming the folder.
    package static func defaultFolder(environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> URL
    {
        if let custom = environment["LAUNCHBENCH_LOCK_DIR"], !custom.isEmpty {
            let folder = URL(fileURLWithPath: custom, isDirectory: true)
            do {
                try FileManager.default.createDirectory(
                    at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw LaunchBenchError.cannotWrite(
                    path: folder.path, reason: "the device-lock folder cannot be created")
            }
            var status = stat()
            guard lstat(folder.path, &status) == 0 else {
                throw LaunchBenchError.cannotWrite(
                    path: folder.path, reason: "the device-lock folder cannot be read (\(errnoText()))")
            }
            if let problem = sharedFolderProblem(status) {
                throw LaunchBenchError.refusedPath(
                    path: folder.path, reason: "LAUNCHBENCH_LOCK_DIR \(problem)",
                    fix: "Point LAUNCHBENCH_LOCK_DIR at a real folder owned by you or root that only you can write, "
                        + "or, to share it, one with the sticky bit (chmod 1777, as /tmp).")
            }
            return folder
        }
        // Only the user's own runtime folder: under `sudo` it may still name the invoking user's.
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty, isOwnedByUs(runtime) {
            let launchbench = try PrivateFolder.ensure(
                URL(fileURLWithPath: runtime, isDirectory: true).appendingPathComponent("launchbench"))
            return try PrivateFolder.ensure(launchbench.appendingPathComponent("locks"))
        }
        return try PrivateFolder.ensure(
            PrivateFolder.userTemporary(environment: environment).appendingPathComponent("locks"))
    }

    /// Why a lock folder others may share (`lstat`) is unsafe, or `nil`.
    static func sharedFolderProblem(_ status: stat) -> String? {
        if status.st_mode & S_IFMT == S_IFLNK { return "is a symbolic link" }
        if status.st_mode & S_IFMT != S_IFDIR { return "is not a folder" }
        if status.st_uid != geteuid() && status.st_uid != 0 {
            return "belongs to user id \(status.st_uid), who could replace any lock file in it"
        }
        if status.st_mode & 0o022 != 0 && status.st_mode & S_ISVTX == 0 {
            return "is writable by other users (mode \(String(status.st_mode & 0o7777, radix: 8))) without the sticky "
                + "bit, so they could replace a lock file"
        }
        return nil
    }

    private static func isOwnedByUs(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_uid == geteuid() && status.st_mode & S_IFMT == S_IFDIR
    }

    /// What a device's lock is keyed by beside its UDID: the usbmuxd that really serves it, however its address
    /// is spelled. Emulated labs repeat UDIDs from lab to lab, so the UDID alone is not enough; the address as
    /// written is too much: a symlinked socket, `/run/usbmuxd` for `/var/run/usbmuxd` or a TCP relay of the same
    /// daemon would let two runs measure one phone at once.
    /// - Parameters:
    ///   - address: the configured usbmuxd (`nil`: the system daemon).
    ///   - systemBUID: what that usbmuxd answers to `ReadBUID` (one per daemon), when it answered.
    /// - Returns: the daemon's BUID when known; else the socket's resolved path (`nil` for the system daemon's
    ///   socket) or the TCP address.
    package static func scope(usbmuxd address: USBMuxAddress?, systemBUID: String?) -> String? {
        if let systemBUID, !systemBUID.isEmpty { return "BUID:" + systemBUID }
        switch address {
        case nil:
            return nil
        case .unix(let path)?:
            let resolved = resolvedPath(path)
            return resolved == resolvedPath(USBMuxAddress.systemSocketPath) ? nil : "UNIX:" + resolved
        case .tcp?:
            return address?.description
        }
    }

    /// `path` with every symlink resolved (as `realpath(3)`), or as given when it does not exist.
    static func resolvedPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `<UDID>.lock`, or `<UDID>@<hash of scope>.lock`; only file-name-safe characters.
    static func fileName(udid: String, scope: String?) -> String {
        let safe = String(udid.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : "_" })
        guard let scope else { return safe + ".lock" }
        return safe + "@" + String(stableHash(scope), radix: 16) + ".lock"
    }

    /// This process's command line, shortened for a message.
    package static func describeCommand() -> String {
        let name = CommandLine.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "launchbench"
        let text = ([name] + CommandLine.arguments.dropFirst()).joined(separator: " ")
            .replacingOccurrences(of: "\n", with: " ")
        return text.count > 160 ? String(text.prefix(157)) + "…" : text
    }

    private static func readHolder(_ fd: Int32) -> Holder {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return Holder() }
        let lines = String(decoding: buffer[..<count], as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false)
        return Holder(
            pid: lines.first.flatMap { Int32($0) }, command: lines.count > 1 ? String(lines[1]) : nil,
            since: lines.count > 2 && !lines[2].isEmpty ? String(lines[2]) : nil)
    }

    private static func timestamp() -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date())
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
