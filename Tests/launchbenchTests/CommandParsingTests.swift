import ArgumentParser
import LaunchBench
import Testing

@testable import launchbench

/// The commands' options, parsed in-process as ArgumentParser's own tests do (`parseAsRoot`, then the
/// message and exit code `main` would print and exit with): no subprocess, no device.
@Suite struct CommandParsingTests {
    /// Parses `arguments` and returns what `launchbench` would print and exit with when they are refused.
    static func refusal(_ arguments: [String]) -> (message: String, status: Int32)? {
        do {
            _ = try LaunchBenchCommand.parseAsRoot(arguments)
            return nil
        } catch {
            return (LaunchBenchCommand.message(for: error), LaunchBenchCommand.exitCode(for: error).rawValue)
        }
    }

    @Test(arguments: [
        (["--iterations", "0"], "--iterations 0"), (["--env", "NOVALUE"], "--env NOVALUE"),
        (["--timeout=-1"], "--timeout -1"), (["--warm=-2"], "--warm -2"), (["--cold", "sometimes"], "sometimes"),
        (["--premain", "ktrace"], "--premain ktrace is not a source. Use one of: auto, dyld-statistics, kdebug."),
        (["--until-verdict"], "--until-verdict"),
        (["--until-verdict", "--baseline", "B", "--iterations", "5"], "--iterations"),
    ])
    func runRefusesABadValueWithUsageNamingIt(arguments: [String], named: String) throws {
        let refusal = try #require(Self.refusal(["run", "X.app"] + arguments), "\(arguments) was accepted")
        #expect(refusal.status == ExitStatus.usage.rawValue)
        #expect(refusal.message.contains(named), "\(refusal.message)")
    }

    /// `run` and `demo` share their results-folder options, and the refusal of an empty one.
    @Test(arguments: [["run", "X.app"], ["demo"]]) func anEmptyOutputIsRefused(command: [String]) throws {
        let refusal = try #require(Self.refusal(command + ["--output", ""]), "\(command) took an empty --output")
        #expect(refusal.status == ExitStatus.usage.rawValue)
        #expect(refusal.message.contains("--output is empty. Name a folder, e.g. --output results."))
        let parsed = try LaunchBenchCommand.parseAsRoot(command + ["-o", "out", "--overwrite"])
        let results = try #require((parsed as? Run)?.results ?? (parsed as? Demo)?.results)
        #expect(results.output == "out" && results.overwrite)
    }

    @Test func goodRunOptionsParse() throws {
        let command = try LaunchBenchCommand.parseAsRoot(["run", "X.app", "--iterations", "3", "--warm", "2"])
        #expect(command is Run)
    }
}
