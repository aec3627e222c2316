import Testing

@testable import launchbench

/// Issue 44: every numeric option has a floor as well as a ceiling, and a value below it exits 64 naming the
/// option and its range before any device is touched (`--require-poll 1e-300` asked a phone 3,564 times in 3 s).
@Suite struct OptionFloorTests {
    @Test(arguments: [
        (["--require-poll", "1e-300"], "--require-poll 1e-300 must be from 1 to 3600 seconds"),
        (["--require-poll", "0.5"], "--require-poll 0.5 must be from 1 to 3600 seconds"),
        (["--timeout", "1e-300"], "--timeout 1e-300 must be from 1 to 3600 seconds"),
        (["--target-precision", "1e-300"], "--target-precision 1e-300 must be a percentage from 0.1 and below 100"),
        (
            ["--against", "/nonexistent/Base.app", "--until-verdict", "--max-iterations", "5"],
            "--max-iterations 5 with --against: the pairs' signed-rank test can show no change from fewer than 6"
        ),
    ])
    func aValueBelowTheFloorExits64NamingTheRange(_ arguments: [String], _ message: String) async {
        let ending = await InProcessCommand.run(["run", "/nonexistent/App.app"] + arguments)
        #expect(ending.status == 64, "\(ending.message ?? "")")
        #expect(ending.message?.contains(message) == true, "\(ending.message ?? "")")
    }

    @Test(arguments: [["--require-poll", "1"], ["--timeout", "1"], ["--target-precision", "0.1"]])
    func theFloorItselfIsAccepted(_ arguments: [String]) async {
        // Past validation the run fails on the missing app (exit 1), not on the option.
        let ending = await InProcessCommand.run(["run", "/nonexistent/App.app"] + arguments)
        #expect(ending.status != 64, "\(ending.message ?? "")")
    }
}
