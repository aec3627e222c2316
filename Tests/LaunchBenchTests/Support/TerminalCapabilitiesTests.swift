import Testing

@testable import LaunchBench

@Suite struct TerminalCapabilitiesTests {
    @Test(arguments: [
        (true, [String: String](), true),
        (false, [:], false),
        (true, ["TERM": "dumb"], false),
        (true, ["CI": "true"], false),
        (true, ["CI": "1"], false),
        (true, ["CI": "false", "TERM": "xterm-256color"], true),
    ])
    func redrawsOnlyOnARealInteractiveTerminal(isTerminal: Bool, environment: [String: String], expected: Bool) {
        #expect(TerminalCapabilities.redrawsInPlace(isTerminal: isTerminal, environment: environment) == expected)
    }
}
