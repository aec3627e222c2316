import Foundation

/// Finds the `pymobiledevice3` program, in this order:
/// 1. `LAUNCHBENCH_PYMOBILEDEVICE3` (a path to the program);
/// 2. `.venv-pmd3/bin/pymobiledevice3` in the current directory, then in each folder above the
///    launchbench executable (a clone's `.build/debug/launchbench` finds the clone's `Scripts/bootstrap
///    --with-pymobiledevice3` virtual environment);
/// 3. `pymobiledevice3` on `PATH`.
public enum Pymobiledevice3Locator {
    public static let environmentVariable = "LAUNCHBENCH_PYMOBILEDEVICE3"
    public static let virtualEnvironment = ".venv-pmd3"

    /// The program's path, or `nil` when none is found.
    public static func find(
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
            if isExecutable(candidate) { return candidate }
        }
        return onPath("pymobiledevice3", environment: environment)
    }

    /// `name` in one of `PATH`'s folders.
    public static func onPath(_ name: String, environment: [String: String]) -> String? {
        for folder in (environment["PATH"] ?? "").split(separator: ":") where !folder.isEmpty {
            let candidate = String(folder) + "/" + name
            if isExecutable(candidate) { return candidate }
        }
        return nil
    }

    static func isExecutable(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: path)
    }
}
