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

    /// Durations and counts past their ceiling are refused before anything runs (`--timeout 1e10` used to trap
    /// converting to nanoseconds, exit 132); the message names the option, the value and the ceiling.
    @Test(arguments: [
        (["--timeout", "1e9"], "--timeout 1000000000.0 is beyond the ceiling of 3600 seconds"),
        (["--timeout", "1e10"], "--timeout 10000000000.0 is beyond the ceiling of 3600 seconds"),
        (["--settle", "1e10"], "--settle 10000000000.0 is beyond the ceiling of 3600 seconds"),
        (["--grace", "61", "--timeout", "600"], "--grace 61.0 is beyond the ceiling of 60 seconds"),
        (["--timeout", "nan"], "--timeout nan must be from 1 to 3600 seconds"),
        (
            ["--iterations", "100001"],
            "--iterations 100001 is out of range. Use a number from 1 to the ceiling of 100000"
        ),
        (["--warm", "1001"], "--warm 1001 is out of range. Use 0 (cold launches only) up to the ceiling of 1000"),
        (
            ["--baseline", "B", "--until-verdict", "--max-iterations", "100001"],
            "--max-iterations 100001 must be from 5 (the minimum) to the ceiling of 100000"
        ),
    ])
    func runRefusesADurationOrCountPastItsCeiling(arguments: [String], message: String) throws {
        let refusal = try #require(Self.refusal(["run", "X.app"] + arguments), "\(arguments) was accepted")
        #expect(refusal.status == ExitStatus.usage.rawValue)
        #expect(refusal.message.contains(message), "\(refusal.message)")
    }

    @Test func runAcceptsTheCeilingsThemselves() throws {
        let command = try LaunchBenchCommand.parseAsRoot([
            "run", "X.app", "--timeout", "3600", "--settle", "3600", "--grace", "60", "--warm", "1000",
        ])
        #expect(command is Run)
    }

    @Test(arguments: ["1e300", "1e-300", "0"]) func emulatorRefusesATimeScaleOutOfItsRange(value: String) throws {
        let refusal = try #require(
            Self.refusal(["emulator", "--time-scale", value]), "--time-scale \(value) was accepted")
        #expect(refusal.status == ExitStatus.usage.rawValue)
        #expect(refusal.message.contains("must be from 0.001 to the ceiling of 100"), "\(refusal.message)")
    }

    @Test func goodRunOptionsParse() throws {
        let command = try LaunchBenchCommand.parseAsRoot(["run", "X.app", "--iterations", "3", "--warm", "2"])
        #expect(command is Run)
    }
}
