import Foundation

/// The package's built executables (e.g. `launchbench`), for CLI tests that run them as subprocesses.
/// `swift build --build-tests` and `swift test` build them next to the test bundle.
package enum BuiltProducts {
    /// The `launchbench` executable, or `nil` when it is not built. `LAUNCHBENCH_TEST_EXECUTABLE` names
    /// another one: `Scripts/test` points it at the installed release binary, the one users run.
    package static var launchbench: String? {
        if let chosen = ProcessInfo.processInfo.environment["LAUNCHBENCH_TEST_EXECUTABLE"], !chosen.isEmpty {
            return chosen
        }
        return executable(named: "launchbench")
    }

    /// An executable product of this package by name, searched in the test bundle's build folder, then
    /// in `.build/debug` of the package.
    package static func executable(named name: String) -> String? {
        candidateFolders().lazy.map { $0.appendingPathComponent(name).path }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private static func candidateFolders() -> [URL] {
        var folders: [URL] = []
        // Linux: the tests run inside .build/<triple>/debug/<package>PackageTests.xctest (an executable).
        if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent()) }
        // macOS: the .xctest bundle sits in the build folder and is loaded by a host process.
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            folders.append(bundle.bundleURL.deletingLastPathComponent())
        }
        // Fallback: <package>/.build/debug, found from this source file's location.
        folders.append(PackageRoot.at(".build/debug"))
        return folders
    }
}
