import Foundation

/// Finds the `pymobiledevice3` program, in this order:
/// 1. `LAUNCHBENCH_PYMOBILEDEVICE3` (a path to the program);
/// 2. `.venv-pmd3/bin/pymobiledevice3` in the current directory, then in each folder above the
///    launchbench executable (a clone's `.build/debug/launchbench` finds the clone's `Scripts/bootstrap
///    --with-pymobiledevice3` virtual environment);
/// 3. `pymobiledevice3` on `PATH`.
///
/// A virtual environment found by searching (2.) is taken only when no other user could have put it there:
/// the working directory may be a shared one (`/tmp` on a CI host), and a planted `.venv-pmd3` would run as
/// us. `LAUNCHBENCH_PYMOBILEDEVICE3` and `PATH` are the user's own choice and are taken as they are.
package enum Pymobiledevice3Locator {
    package static let environmentVariable = "LAUNCHBENCH_PYMOBILEDEVICE3"
    package static let virtualEnvironment = ".venv-pmd3"

    /// The program's path, or `nil` when none is found.
    package static func find(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath,
        executablePath: String? = CommandLine.arguments.first.map {
            URL(fileURLWithPath: $0).resolvingSymlinksInPath().path
        }
    ) -> String? {
        if let explicit = environment[environmentVariable], !explicit.isEmpty {
            return isExecutable(explicit) ? explicit : nil
        }
        var folders = [URL(fileURLWithPath: currentDirectory)]
        if let executablePath {
            var folder = URL(fileURLWithPath: executablePath).deletingLastPathComponent()
            while folder.path != "/" && !folder.path.isEmpty {
                folders.append(folder)
                folder.deleteLastPathComponent()
            }
        }
        for folder in folders {
            let candidate = folder.appendingPathComponent(virtualEnvironment + "/bin/pymobiledevice3").path
            if isExecutable(candidate) && isTrusted(candidate, searchedFrom: folder.path) { return candidate }
        }
        return onPath("pymobiledevice3", environment: environment)
    }

    /// `name` in one of `PATH`'s folders.
    package static func onPath(_ name: String, environment: [String: String]) -> String? {
        for folder in (environment["PATH"] ?? "").split(separator: ":") where !folder.isEmpty {
            let candidate = String(folder) + "/" + name
            if isExecutable(candidate) { return candidate }
        }
        return nil
    }

    /// Whether only this user (or root) could have made `candidate`: it and every folder between it and
    /// `searched` belong to us or root and are writable by no one else, and `searched` itself lets no one else
    /// replace what is in it (not writable by others, or sticky like `/tmp`).
    static func isTrusted(_ candidate: String, searchedFrom searched: String) -> Bool {
        func owned(_ status: stat) -> Bool { status.st_uid == geteuid() || status.st_uid == 0 }
        var status = stat()
        guard stat(searched, &status) == 0, owned(status) || status.st_mode & S_ISVTX != 0 else { return false }
        if status.st_mode & 0o022 != 0 && status.st_mode & S_ISVTX == 0 { return false }
        var path = URL(fileURLWithPath: candidate)
        while path.path.count > searched.count && path.path != "/" {
            guard lstat(path.path, &status) == 0, owned(status), status.st_mode & 0o022 == 0 else { return false }
            path.deleteLastPathComponent()
        }
        return true
    }

    static func isExecutable(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: path)
    }
}
