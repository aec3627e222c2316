import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import LaunchEngines

/// The Python the kdebug helper runs on: the one pymobiledevice3's `#!` line names, or the one a wrapper starts
/// (issue 44 item 13: a shell wrapper used to run the Python helper with bash).
@Suite(.tags(.subprocess)) struct PythonInterpreterTests {
    static let python = Pymobiledevice3Locator.onPath("python3", environment: ProcessInfo.processInfo.environment)

    static func write(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try KdebugTapTests.writeExecutable(text, to: url)
    }

    @Test func theShebangsPythonDirectlyThroughEnvAndInPipsLongForm() throws {
        let folder = EngineFixtures.temporaryFolder()
        let python = folder.appendingPathComponent("a venv with spaces/bin/python3")
        try Self.write("#!/bin/sh\nexit 0\n", to: python)
        let direct = folder.appendingPathComponent("direct")
        try Self.write("#!\(python.path.replacingOccurrences(of: " ", with: "_"))\n", to: direct)
        #expect(PythonInterpreter.shebangInterpreter(of: direct.path) == nil)  // no such Python
        let spaced = folder.appendingPathComponent("venv/bin/python3.11")
        try Self.write("#!/bin/sh\nexit 0\n", to: spaced)
        try Self.write("#!\(spaced.path)\nimport re\n", to: direct)
        #expect(PythonInterpreter.shebangInterpreter(of: direct.path) == spaced.path)
        // `#!/usr/bin/env python3`: found on PATH, as exec would.
        let env = folder.appendingPathComponent("env")
        try Self.write("#!/usr/bin/env python3\n", to: env)
        #expect(
            PythonInterpreter.shebangInterpreter(
                of: env.path, environment: ["PATH": python.deletingLastPathComponent().path]) == python.path)
        // pip writes `#!/bin/sh` and an exec line when the path holds a space or is too long for `#!`.
        let long = folder.appendingPathComponent("long")
        try Self.write("#!/bin/sh\n'''exec' \"\(python.path)\" \"$0\" \"$@\"\n' '''\nimport re\n", to: long)
        #expect(PythonInterpreter.shebangInterpreter(of: long.path) == python.path)
        let unquoted = folder.appendingPathComponent("unquoted")
        try Self.write("#!/bin/sh\n'''exec' \(spaced.path) \"$0\" \"$@\"\n' '''\n", to: unquoted)
        #expect(PythonInterpreter.shebangInterpreter(of: unquoted.path) == spaced.path)
    }

    /// A wrapper (Nix's makeWrapper, a hand-made `exec` script) is asked: the Python that imports pymobiledevice3
    /// and the folders the wrapped script added to its path.
    @Test(.enabled(if: python != nil)) func aWrapperIsAskedForThePythonThatImportsPymobiledevice3() async throws {
        let python = try #require(Self.python)
        let folder = EngineFixtures.temporaryFolder()
        let site = folder.appendingPathComponent("store/site-packages")
        try FileManager.default.createDirectory(
            at: site.appendingPathComponent("pymobiledevice3"), withIntermediateDirectories: true)
        try Data().write(to: site.appendingPathComponent("pymobiledevice3/__init__.py"))
        let wrapped = folder.appendingPathComponent("store/.pymobiledevice3-wrapped")
        try Self.write(
            "#!\(python)\nimport sys\nsys.path.insert(0, \(String(reflecting: site.path)))\nimport pymobiledevice3\n"
                + "print('the program ran on')\n", to: wrapped)
        let wrapper = folder.appendingPathComponent("bin/pymobiledevice3")
        try Self.write("#!/bin/bash -e\nexport SOMETHING=1\nexec -a \"$0\" \(wrapped.path) \"$@\"\n", to: wrapper)
        let resolution = try await PythonInterpreter.resolve(program: wrapper.path)
        #expect(PythonInterpreter.isPython(resolution.python), "\(resolution)")
        #expect(resolution.importPath.contains(site.path), "\(resolution)")
        // That Python, with that path, imports what the program imports (as the helper will).
        let check = try await ChildProcess.run(
            resolution.python, ["-c", "import pymobiledevice3, sys; print(pymobiledevice3.__file__)"],
            environment: ["PYTHONPATH": resolution.importPath.joined(separator: ":")], timeout: .seconds(30))
        #expect(check.status == 0, "\(check.stderr)")
        #expect(String(decoding: check.stdout, as: UTF8.self).hasPrefix(site.path), "\(check.stderr)")
    }

    /// A wrapper that never starts Python is an error naming it and what it runs, never bash running Python.
    @Test func aWrapperThatIsNotPythonBasedIsANamedError() async throws {
        let folder = EngineFixtures.temporaryFolder()
        let wrapper = folder.appendingPathComponent("pymobiledevice3")
        try Self.write("#!/bin/bash\necho 'not python'\n", to: wrapper)
        let error = await #expect(throws: KdebugTapError.self) {
            try await PythonInterpreter.resolve(program: wrapper.path, timeout: .seconds(20))
        }
        let text = error?.errorDescription ?? ""
        #expect(text.contains(wrapper.path), "\(text)")
        #expect(text.contains("#!/bin/bash"), "\(text)")
        #expect(text.contains("not Python-based"), "\(text)")
        #expect(text.contains(Pymobiledevice3Locator.environmentVariable), "\(text)")
    }
}
