import Foundation

/// Finds the `pymobiledevice3` program, in this order:
/// 1. `LAUNCHBENCH_PYMOBILEDEVICE3` (a path to the program), taken as it is: the user's own choice;
/// 2. `.venv-pmd3/bin/pymobiledevice3` in the current directory, then in each folder above the launchbench
///    executable's real path (`ExecutablePath`: a clone's `.build/debug/launchbench` finds the clone's
///    `Scripts/bootstrap` venv, however launchbench was started);
/// 3. the program `Scripts/install` recorded beside the installed binary (`installRecord`), so an installed
///    launchbench finds its clone's venv from any folder;
/// 4. `pymobiledevice3` on `PATH`, the user's own choice too.
///
/// A venv found by searching (2., 3.) is run only when no other user could have changed what Python would
/// run from it (`VirtualEnvironmentTrust`): the working directory may be a shared one (`/tmp` on a CI host).
/// One passed over is named, with why, in `Pymobiledevice3Search.searched`.
package enum Pymobiledevice3Locator {
    package static let environmentVariable = "LAUNCHBENCH_PYMOBILEDEVICE3"
    package static let virtualEnvironment = ".venv-pmd3"
    /// Where `Scripts/install` records the pymobiledevice3 it found, relative to the installed binary's folder:
    /// one line, the program's absolute path (Documentation/Engines.md says why a file, not a baked path).
    package static let installRecord = "../lib/launchbench/pymobiledevice3.path"

    /// The program's path, or `nil` when none is found.
    package static func find(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath,
        executablePath: String? = ExecutablePath.current()
    ) -> String? {
        search(environment: environment, currentDirectory: currentDirectory, executablePath: executablePath).found
    }

    /// Where it was looked for and what was found.
    package static func search(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath,
        executablePath: String? = ExecutablePath.current()
    ) -> Pymobiledevice3Search {
        var search = Pymobiledevice3Search()
        if let explicit = environment[environmentVariable], !explicit.isEmpty {
            search.found = isExecutable(explicit) ? explicit : nil
            search.searched = ["\(environmentVariable)=\(explicit)" + (search.found == nil ? " (not a program)" : "")]
            return search
        }
        search.searched = ["\(environmentVariable) (unset)"]
        var folders = [URL(fileURLWithPath: currentDirectory).standardizedFileURL]
        if let executablePath {
            var folder = URL(fileURLWithPath: executablePath).deletingLastPathComponent()
            while folder.path != "/" && !folder.path.isEmpty {
                if !folders.contains(folder) { folders.append(folder) }
                folder.deleteLastPathComponent()
            }
        }
        for folder in folders {
            let candidate = folder.appendingPathComponent(virtualEnvironment + "/bin/pymobiledevice3").path
            guard isExecutable(candidate) else { continue }
            if let problem = untrusted(candidate, searchedFrom: folder.path) {
                search.passedOver.append("\(candidate): \(problem)")
            } else {
                search.found = candidate
                return search
            }
        }
        search.searched.append(
            "\(virtualEnvironment)/ in \(currentDirectory) and above launchbench (\(executablePath ?? "?"))")
        if let executablePath {
            let record = URL(fileURLWithPath: executablePath).deletingLastPathComponent()
                .appendingPathComponent(installRecord).standardizedFileURL.path
            search.searched.append(record)
            switch recorded(record) {
            case .none: break
            case .failure(let problem): search.passedOver.append("\(record): \(problem)")
            case .success(let program):
                search.found = program
                return search
            }
        }
        search.searched.append("PATH")
        search.found = onPath("pymobiledevice3", environment: environment)
        return search
    }

    /// The program `Scripts/install` recorded in `record`; `nil` when there is no record.
    static func recorded(_ record: String) -> Result<String, RecordProblem>? {
        guard FileManager.default.fileExists(atPath: record) else { return nil }
        if let problem = VirtualEnvironmentTrust.pathProblem(record) { return .failure(RecordProblem(problem)) }
        guard let text = try? String(contentsOfFile: record, encoding: .utf8) else {
            return .failure(RecordProblem("it cannot be read"))
        }
        let program = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard program.hasPrefix("/"), isExecutable(program) else {
            return .failure(RecordProblem("it names \(program), which is not a program; run Scripts/install again"))
        }
        let bin = (program as NSString).deletingLastPathComponent
        let venv = (bin as NSString).deletingLastPathComponent
        guard FileManager.default.fileExists(atPath: venv + "/pyvenv.cfg") else {
            return .failure(RecordProblem("\(program) is not in a virtual environment (no pyvenv.cfg)"))
        }
        if let problem = untrusted(program, searchedFrom: (venv as NSString).deletingLastPathComponent) {
            return .failure(RecordProblem("\(program): \(problem)"))
        }
        return .success(program)
    }

    struct RecordProblem: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// `name` in one of `PATH`'s folders.
    package static func onPath(_ name: String, environment: [String: String]) -> String? {
        for folder in (environment["PATH"] ?? "").split(separator: ":") where !folder.isEmpty {
            let candidate = String(folder) + "/" + name
            if isExecutable(candidate) { return candidate }
        }
        return nil
    }

    /// Why `candidate` (`VENV/bin/pymobiledevice3`) must not run; `nil` when only this user (or root) could
    /// have made it: `searched` lets no one else replace what is in it (not writable by others, or sticky like
    /// `/tmp`), and the whole venv passes `VirtualEnvironmentTrust`.
    static func untrusted(_ candidate: String, searchedFrom searched: String) -> String? {
        var status = stat()
        guard stat(searched, &status) == 0 else { return "\(searched) cannot be read" }
        if status.st_uid != geteuid() && status.st_uid != 0 && status.st_mode & S_ISVTX == 0 {
            return "\(searched) belongs to user \(status.st_uid)"
        }
        if status.st_mode & 0o022 != 0 && status.st_mode & S_ISVTX == 0 {
            return "\(searched) is writable by others, who could replace the venv in it"
        }
        let venv = URL(fileURLWithPath: candidate).deletingLastPathComponent().deletingLastPathComponent().path
        return VirtualEnvironmentTrust.problem(venv: venv, program: candidate)
    }

    /// Whether `candidate` would be run (kept for the tests of earlier issues).
    static func isTrusted(_ candidate: String, searchedFrom searched: String) -> Bool {
        untrusted(candidate, searchedFrom: searched) == nil
    }

    static func isExecutable(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: path)
    }
}

/// What `Pymobiledevice3Locator.search` looked at.
package struct Pymobiledevice3Search: Sendable, Hashable {
    /// The program to run, `nil` when none was found.
    package var found: String?
    /// The places looked in, in order (for the advice when none is found).
    package var searched: [String] = []
    /// Venvs (and an install record) found but not run, each with why.
    package var passedOver: [String] = []

    /// "launchbench looked in …; passed over …", for the advice.
    package var summary: String {
        var text = "launchbench looked for it in " + searched.joined(separator: ", ")
        if !passedOver.isEmpty { text += "; passed over " + passedOver.joined(separator: "; ") }
        return text
    }
}
