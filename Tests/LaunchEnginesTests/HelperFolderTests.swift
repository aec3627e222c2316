import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import LaunchEngines

/// What the pymobiledevice3 helpers search first (`PYTHONPATH`, the script's own folder) is this user's alone,
/// and each helper started for a device gets a log of its own.
@Suite(.tags(.subprocess), .timeLimit(.minutes(1))) struct HelperFolderTests {
    /// Owner and mode of `path`, and whether it is a real folder.
    private func privacy(of path: String) -> (owner: uid_t, mode: mode_t, isFolder: Bool) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return (0, 0o777, false) }
        return (status.st_uid, status.st_mode & 0o777, status.st_mode & S_IFMT == S_IFDIR)
    }

    private func expectPrivate(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let found = privacy(of: path)
        #expect(found.isFolder, "\(path) is not a folder", sourceLocation: sourceLocation)
        #expect(found.owner == geteuid(), "\(path) belongs to \(found.owner)", sourceLocation: sourceLocation)
        #expect(
            found.mode & 0o077 == 0, "\(path) has mode \(String(found.mode, radix: 8))", sourceLocation: sourceLocation)
    }

    @Test func theKdebugHelperSearchesOnlyPrivateFolders() async throws {
        let out = EngineFixtures.temporaryFolder().appendingPathComponent("seen")
        let program = try KdebugTapTests.installation(
            python: "printf '%s\\n%s\\n' \"$PYTHONPATH\" \"$1\" > '\(out.path)'; exit 3")
        let tracer = EngineFixtures.setup(program, environment: ["PYTHONPATH": "/opt/mine"], startTimeout: .seconds(30))
            .tracer(logs: EngineFixtures.temporaryFolder())
        await #expect(throws: KdebugTapError.self) {
            try await tracer.startTrace(on: EngineFixtures.device(ios: "14.8"))
        }

        let lines = try String(contentsOf: out, encoding: .utf8).split(separator: "\n").map(String.init)
        try #require(lines.count == 2)
        let searched = try #require(lines[0].split(separator: ":").first).description
        let scriptFolder = URL(fileURLWithPath: lines[1]).deletingLastPathComponent().path
        #expect(lines[0].hasSuffix(":/opt/mine"))  // the user's own path stays, after ours
        for folder in [searched, scriptFolder] {
            expectPrivate(folder)
            expectPrivate(URL(fileURLWithPath: folder).deletingLastPathComponent().path)  // run-<pid>
        }
        #expect(searched.hasPrefix(PrivateFolder.runLocation.path))
    }

    @Test func theSidecarsPythonPathIsPrivate() async throws {
        let folder = EngineFixtures.temporaryFolder()
        let program = folder.appendingPathComponent("pymobiledevice3")
        let out = folder.appendingPathComponent("seen")
        try KdebugTapTests.writeExecutable(
            "#!/bin/sh\nprintf '%s' \"$PYTHONPATH\" > '\(out.path)'\nexit 1\n", to: program)
        let engine = EngineFixtures.setup(program.path).engine(logs: folder)
        await #expect(throws: EngineError.self) {
            _ = try await engine.sidecar(for: EngineFixtures.device(ios: "16.7"))
        }
        let first = try #require(try String(contentsOf: out, encoding: .utf8).split(separator: ":").first)
        expectPrivate(String(first))
    }

    /// A sidecar started after its predecessor died writes beside its log, never over it.
    @Test func aRestartedSidecarKeepsTheDeadOnesLog() async throws {
        let folder = EngineFixtures.temporaryFolder()
        let program = folder.appendingPathComponent("pymobiledevice3")
        let counter = folder.appendingPathComponent("starts")
        try KdebugTapTests.writeExecutable(
            "#!/bin/sh\necho x >> '\(counter.path)'\necho \"start $(wc -l < '\(counter.path)')\"\nexit 1\n",
            to: program)
        let engine = EngineFixtures.setup(program.path).engine(logs: folder)
        let device = EngineFixtures.device(ios: "16.7")
        for _ in 0..<2 {
            await #expect(throws: EngineError.self) { _ = try await engine.sidecar(for: device) }
        }
        let logs = folder.appendingPathComponent(device.udid)
        let first = try String(contentsOf: logs.appendingPathComponent("pymobiledevice3.log"), encoding: .utf8)
        let second = try String(contentsOf: logs.appendingPathComponent("pymobiledevice3-2.log"), encoding: .utf8)
        #expect(first.contains("start 1") && !first.contains("start 2"), "\(first)")
        #expect(second.contains("start 2"), "\(second)")
    }
}
