import Foundation
import TestSupport
import Testing

/// The cases in `Fixtures/cli/`, each a run of the built binary as a user types it: arguments (and stdin) in,
/// exit status, stdout and stderr lines out (see that folder's README).
@Suite(.tags(.subprocess), .timeLimit(.minutes(5))) struct CommandLineCaseTests {
    static let folder = PackageRoot.at("Fixtures/cli")
    static let fixtures = PackageRoot.at("Fixtures").path

    static var cases: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted()
    }

    @Test func thereAreCases() {
        #expect(Self.cases.count >= 6)
    }

    @Test(arguments: cases) func runsAsWritten(name: String) async throws {
        let folder = Self.folder.appendingPathComponent(name)
        func read(_ file: String) throws -> String {
            try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                .replacingOccurrences(of: "@FIXTURES@", with: Self.fixtures)
        }
        let arguments = try read("args").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let hasInput = FileManager.default.fileExists(atPath: folder.appendingPathComponent("input").path)
        let outcome = try await LaunchbenchCLI.run(
            arguments.last == "" ? Array(arguments.dropLast()) : arguments, environment: ["NO_COLOR": "1"],
            stdin: hasInput ? try read("input") : nil)
        let exit = try #require(Int32(try read("expected-exit").trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(outcome.status == exit, "\(name): stderr: \(outcome.stderr)")
        #expect(outcome.stdout == (try read("expected-stdout")), "\(name)")
        for line in try read("expected-stderr").split(separator: "\n") {
            #expect(outcome.stderr.contains(line), "\(name): stderr lacks \(line)")
        }
    }
}
