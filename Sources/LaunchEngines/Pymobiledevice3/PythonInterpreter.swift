import Foundation
import LaunchBench

/// The Python that runs a `pymobiledevice3` program, which runs launchbench's kdebug helper (issue 44 item 13):
/// the helper imports pymobiledevice3's API, so it needs that program's interpreter and import path, whatever
/// wraps the program. Read from its `#!` line where that names Python: directly (a venv, pipx), through
/// `/usr/bin/env` (found on PATH, as the kernel's exec would), or pip's form for a path too long or spaced
/// for a `#!` line (`#!/bin/sh`, then `'''exec' "PYTHON" "$0" "$@"`: distlib 0.3.6 `scripts.py` 129–158,
/// vendored by pip 23.2.1). Any other program (a Nix `makeWrapper` script, a hand-made `exec` wrapper) is
/// asked: it runs once with a `sitecustomize.py` on `PYTHONPATH` whose audit hook reports `sys.executable` and
/// `sys.path` when pymobiledevice3 is first imported, then ends the process (Python's `sys.addaudithook`,
/// event `import`). A program that never imports it under a Python launchbench can ask is an error naming it.
package enum PythonInterpreter {
    /// The interpreter and the import path to run the helper with.
    package struct Resolution: Sendable, Hashable {
        /// The Python executable.
        package var python: String
        /// Folders the program's Python imports from beyond the interpreter's own (a wrapper's additions),
        /// to put on the helper's `PYTHONPATH`; empty when read from the `#!` line.
        package var importPath: [String] = []
    }

    /// How the program was judged, for the error: its first line.
    static func firstLine(of program: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: program) else { return nil }
        defer { try? handle.close() }
        let head = String(decoding: (try? handle.read(upToCount: 512)) ?? Data(), as: UTF8.self)
        return head.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init)
    }

    /// The Python the program's `#!` line runs it with, `nil` when that line names no Python.
    package static func shebangInterpreter(
        of program: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        guard let handle = FileHandle(forReadingAtPath: program) else { return nil }
        defer { try? handle.close() }
        let head = String(decoding: (try? handle.read(upToCount: 4096)) ?? Data(), as: UTF8.self)
        let lines = head.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let first = lines.first, first.hasPrefix("#!") else { return nil }
        var words = first.dropFirst(2).split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        if words.first == "/bin/sh", lines.count > 1, let python = pipExecLine(lines[1]) {
            return isPython(python) ? python : nil
        }
        if let command = words.first, command.hasSuffix("/env") {
            words.removeFirst()
            if words.first == "-S" { words.removeFirst() }  // `env -S "python3 -E"`
            guard let name = words.first(where: { !$0.hasPrefix("-") && !$0.contains("=") }) else { return nil }
            let found = name.contains("/") ? name : Pymobiledevice3Locator.onPath(name, environment: environment)
            return found.flatMap { isPython($0) ? $0 : nil }
        }
        return words.first.flatMap { isPython($0) ? $0 : nil }
    }

    /// The interpreter of pip's `'''exec' "PYTHON" "$0" "$@"` line (quoted when it holds a space).
    static func pipExecLine(_ line: String) -> String? {
        let prefix = "'''exec' "
        guard line.hasPrefix(prefix) else { return nil }
        let rest = line.dropFirst(prefix.count)
        if rest.hasPrefix("\"") {
            return rest.dropFirst().split(separator: "\"", maxSplits: 1, omittingEmptySubsequences: false).first
                .map(String.init)
        }
        return rest.split(separator: " ").first.map(String.init)
    }

    /// Whether `path` names a Python interpreter (`python3`, `python3.11`, `pypy3`), links resolved.
    static func isPython(_ path: String) -> Bool {
        func named(_ path: String) -> Bool {
            let name = (path as NSString).lastPathComponent
            for stem in ["python", "pypy"] where name.hasPrefix(stem) {
                return name.dropFirst(stem.count).allSatisfy { $0.isNumber || $0 == "." }
            }
            return false
        }
        return Pymobiledevice3Locator.isExecutable(path)
            && (named(path) || ExecutablePath.resolved(path).map(named) == true)
    }

    /// The helper's interpreter for `program`: from its `#!` line, else by asking it (once per program per
    /// launchbench process).
    /// - Throws: `KdebugTapError.noPython` naming the program, what its first line runs, and the fix.
    static func resolve(program: String, timeout: Duration = .seconds(15)) async throws -> Resolution {
        if let python = shebangInterpreter(of: program) { return Resolution(python: python) }
        if let known = asked.withLock({ $0[program] }) { return try known.get() }
        let result: Result<Resolution, KdebugTapError>
        do {
            result = .success(try await ask(program, timeout: timeout))
        } catch let reason as Unanswered {
            let line = firstLine(of: program).map { "its first line is `\($0.prefix(80))`" } ?? "it cannot be read"
            result = .failure(.noPython(executable: program, reason: "\(line), and \(reason.text)"))
        }
        asked.withLock { $0[program] = result }
        return try result.get()
    }

    private static let asked = Locked([String: Result<Resolution, KdebugTapError>]())

    struct Unanswered: Error {
        var text: String
    }

    static let probeMarker = "launchbench-python-probe: "
    /// The probe: when pymobiledevice3 is imported, print the interpreter and its path, and end at once.
    static let probeSource = """
        # Written by launchbench (Sources/LaunchEngines/Pymobiledevice3/PythonInterpreter.swift): reports the
        # Python that imports pymobiledevice3, then ends the process before the program does anything else.
        import json as _json, os as _os, sys as _sys
        def _launchbench_probe(event, args):
            if event == "import" and args and args[0] == "pymobiledevice3":
                here = _os.path.dirname(_os.path.abspath(__file__))
                path = [p for p in _sys.path if p and _os.path.abspath(p) != here]
                _sys.stdout.write("\(probeMarker)" + _json.dumps({"executable": _sys.executable, "path": path}) + "\\n")
                _sys.stdout.flush()
                _os._exit(0)
        _sys.addaudithook(_launchbench_probe)
        """

    /// Runs `program --help` with the probe on `PYTHONPATH` (in launchbench's private folder) and reads its answer.
    static func ask(_ program: String, timeout: Duration) async throws -> Resolution {
        let folder: URL
        do {
            folder = try PrivateFolder.ensure(PrivateFolder.run().appendingPathComponent("python-probe"))
            try Data(probeSource.utf8).write(to: folder.appendingPathComponent("sitecustomize.py"), options: .atomic)
        } catch {
            throw Unanswered(text: "launchbench could not write its probe: \(error)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = ["--help"]
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = [folder.path, environment["PYTHONPATH"]].compactMap { $0 }
            .filter { !$0.isEmpty }.joined(separator: ":")
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw Unanswered(text: "it cannot be started: \(error.localizedDescription)")
        }
        let reading = Task.detached { output.fileHandleForReading.readDataToEndOfFile() }
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { process.terminate() }
        let text = String(decoding: await reading.value, as: UTF8.self)
        guard
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(probeMarker) }),
            let object = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(probeMarker.count).utf8))
                as? [String: Any],
            let python = object["executable"] as? String, Pymobiledevice3Locator.isExecutable(python)
        else {
            throw Unanswered(
                text: "run with launchbench's probe on PYTHONPATH it started no Python that imports pymobiledevice3 "
                    + "(a wrapper that is not Python-based, or one that ignores PYTHONPATH)")
        }
        return Resolution(python: python, importPath: object["path"] as? [String] ?? [])
    }
}
