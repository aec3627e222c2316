import Foundation
import TestSupport
import Testing

#if os(Linux)  // util-linux's `script -qec`; BSD script takes other arguments
    /// The live progress display on a real pseudo-terminal (util-linux `script` gives the binary one): it redraws
    /// in place on an ordinary terminal, and writes plain lines with `TERM=dumb` or `CI=true`, as into a file.
    @Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(5))) struct TerminalOutputTests {
        /// What `launchbench demo` wrote to the terminal with `environment` (`-u NAME` unsets a variable).
        private func demoOnATerminal(_ environment: [String]) async throws -> String {
            let script = try #require(
                ["/usr/bin/script", "/bin/script"].first { FileManager.default.isExecutableFile(atPath: $0) },
                "util-linux's script is missing")
            let binary = try LaunchbenchCLI.executable()
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("tty-\(UUID().uuidString)")
            let pymobiledevice3 = EndToEnd.withoutPymobiledevice3.map { "\($0.key)=\($0.value)" }
            // env's options (-u) come before its assignments.
            let demo = [binary, "demo", "--iterations", "2", "--output", output.path]
            let command = (["env"] + environment + pymobiledevice3 + demo).map { "'\($0)'" }.joined(separator: " ")
            let child = try ChildProcess(executable: script, arguments: ["-qec", command, "/dev/null"])
            let status = try await child.waitForExit(timeout: .seconds(120))
            #expect(status == 0, "\(child.standardOutput)")
            return child.standardOutput
        }

        /// Cursor up (`ESC [ n A`) and erase line (`ESC [ 2 K`): what redrawing in place writes.
        private func redraws(_ text: String) -> Bool {
            text.range(of: "\u{1B}\\[[0-9]+A", options: .regularExpression) != nil || text.contains("\u{1B}[2K")
        }

        @Test func anOrdinaryTerminalGetsTheLiveDisplay() async throws {
            let text = try await demoOnATerminal(["-u", "CI", "TERM=xterm-256color"])
            #expect(redraws(text), "no cursor movement on a terminal: the pty did not reach the binary?")
        }

        @Test(arguments: [["-u", "CI", "TERM=dumb"], ["CI=true", "TERM=xterm-256color"]])
        func aDumbTerminalOrACILogGetsPlainLines(environment: [String]) async throws {
            let text = try await demoOnATerminal(environment)
            #expect(!redraws(text), "\(text.prefix(400))")
            #expect(text.contains("cold ok"), "plain progress lines expected: \(text.prefix(400))")
        }
    }
#endif
