import Testing

@testable import launchbench

/// `run --require`: an unknown condition or a malformed bound is refused with exit 64, naming it, before any
/// device is touched; so are `--require-wait` and `--require-poll` out of range.
@Suite struct RequireOptionTests {
    @Test(arguments: [
        ("humidity<=40", "--require humidity<=40: unknown condition"),
        ("charging,battery>=lots", "--require battery>=lots: the bound is malformed"),
        ("temperature<=", "--require temperature<=: the bound is malformed"),
    ])
    func badConditionsExit64NamingThem(_ list: String, _ message: String) async {
        let ending = await InProcessCommand.run(["run", "/nonexistent/App.app", "--require", list])
        #expect(ending.status == 64)
        #expect(ending.message?.contains(message) == true, "\(ending.message ?? "")")
    }

    @Test func waitAndPollOutOfRangeExit64() async {
        let wait = await InProcessCommand.run(["run", "/nonexistent/App.app", "--require-wait", "-1"])
        #expect(wait.status == 64 && wait.message?.contains("--require-wait") == true)
        let poll = await InProcessCommand.run(["run", "/nonexistent/App.app", "--require-poll", "0"])
        #expect(poll.status == 64 && poll.message?.contains("--require-poll") == true)
        let fallback = await InProcessCommand.run(["run", "/nonexistent/App.app", "--outside-requirements", "maybe"])
        #expect(fallback.status == 64)
    }
}
