import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import LaunchEngines

/// The kdebug tap helper as launchbench runs it, without a device: its script, the Python it picks, and what
/// its failures say.
@Suite(.tags(.subprocess)) struct KdebugTapTests {
    /// A `pymobiledevice3` in a fresh folder whose `#!` line names a `python3` beside it (as a venv's does), which
    /// runs `body` (a shell script).
    static func installation(python body: String) throws -> String {
        let folder = EngineFixtures.temporaryFolder()
        let program = folder.appendingPathComponent("pymobiledevice3")
        let python = folder.appendingPathComponent("python3")
        try writeExecutable("#!\(python.path)\nexit 9\n", to: program)
        try writeExecutable("#!/bin/sh\n" + body + "\n", to: python)
        return program.path
    }

    /// Writes a script through a child shell, never through a file descriptor of this process: a test that
    /// forks while we hold one open for writing passes it to its child, and running the script then fails
    /// with ETXTBSY ("text file busy") until that child has exec'd. It did once in CI.
    static func writeExecutable(_ text: String, to url: URL) throws {
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "printf '%s' \"$1\" > \"$2\" && chmod 755 \"$2\"", "sh", text, url.path]
        try writer.run()
        writer.waitUntilExit()
        #expect(writer.terminationStatus == 0)
    }

    @Test func theHelperIsValidPython() throws {
        let script = try Pymobiledevice3KdebugTracer.scriptFile()
        let python = try #require(
            Pymobiledevice3Locator.onPath("python3", environment: ProcessInfo.processInfo.environment))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())", script.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test func thePythonOfPymobiledevice3sShebangRunsTheHelper() async throws {
        let program = try Self.installation(python: "exit 0")
        #expect(
            try await PythonInterpreter.resolve(program: program).python
                == program.replacingOccurrences(of: "pymobiledevice3", with: "python3"))
    }

    /// A Python without pymobiledevice3 (here: with its site-packages switched off) gets the install command.
    @Test func aPythonWithoutPymobiledevice3IsToldHowToInstallIt() async throws {
        let python = try #require(
            Pymobiledevice3Locator.onPath("python3", environment: ProcessInfo.processInfo.environment))
        let program = try Self.installation(python: "exec \(python) -S -E \"$@\"")
        let tracer = EngineFixtures.setup(program, startTimeout: .seconds(30)).tracer(
            logs: EngineFixtures.temporaryFolder())
        let error = await #expect(throws: KdebugTapError.self) {
            try await tracer.startTrace(on: EngineFixtures.device(ios: "16.7"))
        }
        let text = error?.errorDescription ?? ""
        #expect(text.contains("pymobiledevice3 is not importable"), "\(text)")
        #expect(text.contains("pipx install pymobiledevice3==11.45.0"), "\(text)")
    }

    @Test func aHelperThatDiesAtOnceQuotesWhatItSaid() async throws {
        let program = try Self.installation(python: "echo 'Traceback: something broke' >&2; exit 4")
        let logs = EngineFixtures.temporaryFolder()
        let tracer = EngineFixtures.setup(program, startTimeout: .seconds(30)).tracer(logs: logs)
        let udid = "00008120-001A2B3C4D5E6F70"
        let error = await #expect(throws: KdebugTapError.self) {
            try await tracer.startTrace(on: EngineFixtures.device(ios: "17.5", udid: udid))
        }
        guard case .exited(let who, let status, let log, let path)? = error else {
            Issue.record("not an early exit: \(String(describing: error))")
            return
        }
        #expect(who == udid && status == 4)
        #expect(log.contains("Traceback: something broke"))
        #expect(path == logs.appendingPathComponent("\(udid)/kdebug-tap.log").path)
        // iOS 17.4+: the helper was asked for the userspace tunnel.
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("--transport userspace"))
    }

    /// pymobiledevice3's reader refuses a DTX message of type COMPRESSED with this error (dtx/_reader.py); the
    /// helper names it, and launchbench says what it means, instead of "the connection failed".
    @Test func aCompressedDTXMessageIsNamed() throws {
        let script = try Pymobiledevice3KdebugTracer.scriptFile()
        let python = try #require(
            Pymobiledevice3Locator.onPath("python3", environment: ProcessInfo.processInfo.environment))
        let check = """
            import importlib.util, sys
            spec = importlib.util.spec_from_file_location("tap", sys.argv[1])
            tap = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(tap)
            class DTXProtocolError(Exception): pass
            print(tap.failure_kind(DTXProtocolError(
                "Received compressed fragment: identifier=7, conversation_index=0, channel_code=-1")))
            print(tap.failure_kind(DTXProtocolError("bad magic")))
            print(tap.failure_kind(ConnectionResetError()))
            """
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", check, script.path]
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text.split(separator: "\n") == ["compressed", "lost", "lost"], "\(text)")
        let error = KdebugTapError.reported(kind: "compressed", message: "DTXProtocolError(...)", udid: "U")
        #expect(error == .compressed(udid: "U", message: "DTXProtocolError(...)"))
        let description = error.errorDescription ?? ""
        #expect(description.contains("LZ4-compressed DTX") && description.contains("--premain dyld-statistics"))
    }

    @Test func kperfOwnedElsewhereNamesTheRecordingToStop() {
        let text = KdebugTapError.kperfLocked(udid: "U", notice: "could not lock kperf").errorDescription ?? ""
        #expect(text.contains("Instruments or Xcode recording") && text.contains("Stop that recording"))
    }
}
