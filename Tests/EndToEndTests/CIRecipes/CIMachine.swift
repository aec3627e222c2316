import Foundation
import TestSupport

/// The machine a recipe's jobs run on in CIRecipeTests: a scratch folder holding the runner's tool cache and
/// home, the app's repository (what a checkout copies), the artifact store, and the stand-ins of
/// Fixtures/ci-recipes/bin on a PATH that holds nothing else but /usr/bin and /bin, so that launchbench is there
/// only once a recipe's install step put it there.
final class CIMachine {
    let root: URL
    /// The app repository a checkout copies (its `.launchbench/allowed-dylibs.txt`).
    let repository: URL
    /// What `xcodebuild` "builds".
    let app: URL
    /// The launchbench a recipe's `Scripts/install` installs (the one under test).
    let launchbench: String
    /// usbmuxd of the phones per runner label or matrix value; `default` for the rest.
    var usbmuxd: [String: String]
    /// The URL recipes clone launchbench from (`LAUNCHBENCH_REPOSITORY`).
    let launchbenchRepository = "https://git.example.invalid/tools/launchbench.git"
    private var lastRunID = 7000

    static let standIns = PackageRoot.at("Fixtures/ci-recipes/bin")

    init(root: URL, repository: URL, app: URL, launchbench: String, usbmuxd: [String: String]) throws {
        self.root = root
        self.repository = repository
        self.app = app
        self.launchbench = launchbench
        self.usbmuxd = usbmuxd
        for folder in [store, toolCache, home] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
    }

    var store: URL { root.appendingPathComponent("store") }
    var toolCache: URL { root.appendingPathComponent("runner/tool-cache") }
    var home: URL { root.appendingPathComponent("runner/home") }

    func nextRunID() -> Int {
        lastRunID += 1
        return lastRunID
    }

    /// A fresh job folder.
    func workspace(_ label: String) throws -> URL {
        let folder = root.appendingPathComponent("work/\(label)-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// What every job's shell has, before the CI's own variables.
    func environment(host: String) -> [String: String] {
        [
            "PATH": "\(Self.standIns.path):/usr/bin:/bin", "HOME": home.path, "NO_COLOR": "1",
            "USBMUXD_SOCKET_ADDRESS": usbmuxd[host] ?? usbmuxd["default"] ?? "",
            // The lab's phones are iOS ≤ 16 ones, measured through libimobiledevice.
            "LAUNCHBENCH_PYMOBILEDEVICE3": "/nonexistent/pymobiledevice3",
            "CI_FAKE_STORE": store.path, "CI_FAKE_APP": app.path, "CI_FAKE_LAUNCHBENCH": launchbench,
            "CI_FAKE_REPOSITORY": launchbenchRepository,
        ]
    }

    /// Runs `script` with `bash -e` (as a GitHub `run:` step without `shell:`) or as given, in `folder`.
    func run(_ script: String, in folder: URL, environment: [String: String]) async throws -> (
        status: Int32?, output: String
    ) {
        let file = root.appendingPathComponent("scripts/\(UUID().uuidString).sh")
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(script.utf8).write(to: file)
        let result = try await ChildProcess.run(
            "/bin/bash", ["-c", "cd \"$0\" && exec /bin/bash -e \"$1\" 2>&1", folder.path, file.path],
            environment: environment, timeout: .seconds(600))
        return (result.status, String(decoding: result.stdout, as: UTF8.self) + result.stderr)
    }

    /// Copies `source` (a file, or a folder's contents) into `destination` as an artifact store keeps it: the
    /// files' modes are not kept (actions/upload-artifact's README, "Permission Loss"), so every file comes
    /// back 0644.
    static func copyDroppingModes(_ source: URL, into destination: URL) throws {
        let files = FileManager.default
        try files.createDirectory(at: destination, withIntermediateDirectories: true)
        var isFolder: ObjCBool = false
        guard files.fileExists(atPath: source.path, isDirectory: &isFolder) else { return }
        guard isFolder.boolValue else {
            let target = destination.appendingPathComponent(source.lastPathComponent)
            try Data(contentsOf: source).write(to: target)
            try files.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target.path)
            return
        }
        for name in try files.contentsOfDirectory(atPath: source.path) {
            let item = source.appendingPathComponent(name)
            var itemIsFolder: ObjCBool = false
            _ = files.fileExists(atPath: item.path, isDirectory: &itemIsFolder)
            if itemIsFolder.boolValue {
                try copyDroppingModes(item, into: destination.appendingPathComponent(name))
            } else {
                try copyDroppingModes(item, into: destination)
            }
        }
    }

    /// A file's permission bits.
    static func mode(of url: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) ?? nil
    }
}
