import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import LaunchEngines

/// The one helper-process type both helpers run on: lines both ways, an exit seen only after the helper's last
/// line, and a stop that ends even a helper that ignores being asked.
@Suite(.tags(.subprocess), .timeLimit(.minutes(1))) struct HelperProcessTests {
    /// What a `.lines` helper handed out, in order, and the number of lines seen when its exit came.
    final class Received: Sendable {
        let lines = Locked<[String]>([])
        let exit = Locked<(status: Int32, linesBefore: Int)?>(nil)

        var output: HelperProcess.Output {
            .lines(
                line: { data in self.lines.withLock { $0.append(String(decoding: data, as: UTF8.self)) } },
                exit: { status in
                    let count = self.lines.current.count
                    self.exit.withLock { $0 = (status, count) }
                })
        }
    }

    func script(_ text: String) throws -> (program: String, log: URL) {
        let folder = EngineFixtures.temporaryFolder()
        let program = folder.appendingPathComponent("helper")
        try KdebugTapTests.writeExecutable("#!/bin/sh\n" + text, to: program)
        return (program.path, folder.appendingPathComponent("helper.log"))
    }

    @Test func linesSentComeBackInOrderAndClosingStdinEndsTheHelper() async throws {
        let (program, log) = try script("exec cat\n")
        let received = Received()
        let helper = try HelperProcess.start(
            executable: program, arguments: ["--flag"], environment: [:], log: log, input: true,
            output: received.output)
        try helper.send(Data(#"{"cmd": "pid", "id": 1}"#.utf8))
        try helper.send(Data("second".utf8))
        let echoed = try await helper.awaitReady(within: .seconds(20), every: .milliseconds(10)) {
            received.lines.current.count == 2 ? received.lines.current : nil
        }
        #expect(echoed == [#"{"cmd": "pid", "id": 1}"#, "second"])
        await helper.stop()
        #expect(!helper.isRunning)
        #expect(!HelperRegistry.alive.contains(helper.processIdentifier))
        try await waitUntil("the exit is handed out", timeout: .seconds(20)) { received.exit.current != nil }
        #expect(received.exit.current?.status == 0)  // cat ends on its own when stdin closes
        #expect(received.exit.current?.linesBefore == 2)
        #expect(try String(contentsOf: log, encoding: .utf8).hasPrefix("$ \(program) --flag\n"))
    }

    /// A helper that says why it fails and exits at once: the reason counts, not the bare exit.
    @Test func whatAHelperSaidBeforeItExitedIsTheFailure() async throws {
        struct Reported: Error, Equatable { var line: String }
        let (program, log) = try script("echo 'kperf is busy'\nexit 3\n")
        let received = Received()
        let helper = try HelperProcess.start(
            executable: program, arguments: [], environment: [:], log: log, output: received.output)
        await #expect(throws: Reported(line: "kperf is busy")) {
            _ = try await helper.awaitReady(within: .seconds(20), every: .milliseconds(10)) { () throws -> Bool? in
                if let line = received.lines.current.first { throw Reported(line: line) }
                return nil
            }
        }
    }

    /// A helper that exits silently before it is ready is `exited` with its status; its log keeps what it wrote.
    @Test func aHelperThatExitsFirstIsExitedWithItsStatus() async throws {
        let (program, log) = try script("echo 'no device' >&2\nexit 7\n")
        let helper = try HelperProcess.start(executable: program, arguments: [], environment: [:], log: log)
        do {
            _ = try await helper.awaitReady(within: .seconds(20), every: .milliseconds(10)) { () -> Bool? in nil }
            Issue.record("expected the helper's exit")
        } catch HelperProcess.Failure.exited(let status) {
            #expect(status == 7)
        }
        #expect(HelperLog.tail(of: log, lines: 3, characters: 100) == "no device")
    }

    /// Closed stdin and SIGTERM ignored: SIGKILL ends it, and stop returns once it is gone.
    @Test func aHelperThatIgnoresBeingAskedIsKilled() async throws {
        let folder = EngineFixtures.temporaryFolder()
        let pidFile = folder.appendingPathComponent("pid")
        let (program, log) = try script("trap '' TERM\necho $$ > '\(pidFile.path)'\nwhile :; do sleep 1; done\n")
        let helper = try HelperProcess.start(
            executable: program, arguments: [], environment: [:], log: log, input: true)
        try await waitUntil("the helper wrote its pid", timeout: .seconds(20)) {
            FileManager.default.fileExists(atPath: pidFile.path)
        }
        await helper.stop()
        #expect(!helper.isRunning)
        #expect(await isGone(helper.processIdentifier))
        #expect(!HelperRegistry.alive.contains(helper.processIdentifier))
    }
}
