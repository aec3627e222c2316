import Foundation
import LaunchBench
import Testing

@testable import launchbench

/// `parse` on a path it cannot read, in-process: the error is launchbench's own (`CommandFailure`), which `main`
/// prints once as `Error: …` with its status, never with the usage an option mistake gets.
@Suite struct ParseFailureTests {
    @Test(arguments: ["/nonexistent/capture.log", "/"])
    func aFileErrorIsOneLineWithoutTheUsage(path: String) throws {
        var command = try LaunchBenchCommand.parseAsRoot(["parse", path])
        do {
            try command.run()
            Issue.record("parse \(path) succeeded")
        } catch {
            let failure = try #require(CommandFailure(reporting: error), "\(error) would be printed with the usage")
            #expect(failure.status == .failure)
            #expect(failure.message.contains(path), "\(failure.message)")
            #expect(!failure.message.contains("Error:") && !failure.message.contains("\n"), "\(failure.message)")
        }
    }
}
