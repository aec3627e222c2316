import Foundation
import Testing

@testable import LaunchBench

/// Folders launchbench writes helpers and logs into must be this user's alone: one another user owns, or
/// can write, may hold a planted module (`argparse.py` on a helper's `PYTHONPATH` ran as root, issue 32).
@Suite struct PrivateFolderTests {
    private let parent: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("launchbench-private-\(UUID())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    private func mode(_ url: URL) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    @Test func aNewFolderIsCreated0700() throws {
        let url = try PrivateFolder.ensure(parent.appendingPathComponent("new"))
        #expect(try mode(url) == 0o700)
        try PrivateFolder.ensure(url)  // reused as it is
    }

    @Test func aFolderOwnedBySomeoneElseIsRefused() throws {
        try #require(geteuid() == 0, "needs root to give a folder to nobody")
        let planted = parent.appendingPathComponent("planted")
        try FileManager.default.createDirectory(at: planted, withIntermediateDirectories: false)
        try Data("raise SystemExit('planted')\n".utf8).write(to: planted.appendingPathComponent("argparse.py"))
        chmod(planted.path, 0o700)
        #expect(chown(planted.path, 65534, 65534) == 0)
        let error = #expect(throws: LaunchBenchError.self) { try PrivateFolder.ensure(planted) }
        guard case .unsafeFolder(let path, let reason)? = error else {
            Issue.record("expected unsafeFolder, got \(String(describing: error))")
            return
        }
        #expect(path == planted.path && reason.contains("65534"))
        #expect(error?.errorDescription?.contains("rm -rf \(planted.path)") == true)
    }

    @Test func aFolderOthersCanWriteIsRefused() throws {
        let open = parent.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: false)
        chmod(open.path, 0o777)
        let error = #expect(throws: LaunchBenchError.self) { try PrivateFolder.ensure(open) }
        guard case .unsafeFolder(_, let reason)? = error else {
            Issue.record("expected unsafeFolder, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("777"))
    }

    @Test func aSymbolicLinkIsRefusedEvenToAPrivateFolder() throws {
        let target = try PrivateFolder.ensure(parent.appendingPathComponent("target"))
        let link = parent.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        #expect(throws: LaunchBenchError.self) { try PrivateFolder.ensure(link) }
    }

    @Test func theUserFolderIsCheckedToo() throws {
        try #require(geteuid() == 0, "needs root to give a folder to nobody")
        let planted = parent.appendingPathComponent("launchbench-\(geteuid())")
        try FileManager.default.createDirectory(at: planted, withIntermediateDirectories: false)
        chmod(planted.path, 0o777)
        #expect(chown(planted.path, 65534, 65534) == 0)
        #expect(throws: LaunchBenchError.self) {
            try PrivateFolder.userTemporary(environment: ["TMPDIR": parent.path])
        }
    }

    @Test func takingTheUserFolderRemovesADeadRunsFolder() throws {
        defer { try? FileManager.default.removeItem(at: parent) }
        let environment = ["TMPDIR": parent.path]
        let user = try PrivateFolder.userTemporary(environment: environment)
        // Left by a run killed with SIGKILL (a pid no process has); a run without helpers (device locks only)
        // must clean it too.
        let dead = try PrivateFolder.ensure(user.appendingPathComponent("run-\(Int32.max - 11)"))
        try Data("import os\n".utf8).write(to: dead.appendingPathComponent("sitecustomize.py"))
        let locks = try PrivateFolder.ensure(user.appendingPathComponent("locks"))
        _ = try PrivateFolder.userTemporary(environment: environment)
        #expect(!FileManager.default.fileExists(atPath: dead.path))
        #expect(FileManager.default.fileExists(atPath: locks.path))
    }

    @Test func theRunFolderIsPrivateAndLeftoversOfDeadRunsGo() throws {
        let run = try PrivateFolder.run()
        #expect(run.lastPathComponent == "run-\(getpid())")
        #expect(try mode(run) == 0o700)
        #expect(try mode(run.deletingLastPathComponent()) == 0o700)

        // A folder of a run killed with SIGKILL (a pid no process has), and one of a live process (ours, pid 1).
        let dead = run.deletingLastPathComponent().appendingPathComponent("run-\(Int32.max - 7)")
        let live = run.deletingLastPathComponent().appendingPathComponent("run-1")
        try PrivateFolder.ensure(dead)
        try PrivateFolder.ensure(live)
        PrivateFolder.removeStaleRuns(in: run.deletingLastPathComponent())
        #expect(!FileManager.default.fileExists(atPath: dead.path))
        #expect(FileManager.default.fileExists(atPath: live.path) && FileManager.default.fileExists(atPath: run.path))
        try? FileManager.default.removeItem(at: live)
    }
}
