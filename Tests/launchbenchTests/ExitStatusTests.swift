import ArgumentParser
import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import launchbench

/// The exit-code table (`ExitStatus`) is the only place a code's meaning is written: each code is distinct
/// and has one, README.md's table says the same, and the commands name codes instead of writing numbers.
@Suite struct ExitStatusTests {
    static let packageRoot = PackageRoot.url

    struct Row: Equatable, CustomStringConvertible {
        var code: Int32
        var meaning: String
        var description: String { "\(code) | \(meaning)" }
    }

    /// The rows of README.md's table under `**Exit codes**`.
    static func readmeRows() throws -> [Row] {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(text.range(of: "**Exit codes**"), "README.md has no **Exit codes** table")
        var rows: [Row] = []
        for line in text[section.upperBound...].components(separatedBy: "\n").dropFirst() {
            if line.isEmpty && rows.isEmpty { continue }
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 2, let code = Int32(cells[0]) else { continue }  // the header and its rule
            rows.append(Row(code: code, meaning: cells[1]))
        }
        return rows
    }

    @Test func everyCodeIsDistinctAndHasAMeaning() {
        #expect(Set(ExitStatus.allCases.map(\.rawValue)).count == ExitStatus.allCases.count)
        for status in ExitStatus.allCases { #expect(!status.meaning.isEmpty, "\(status) has no meaning") }
        // The numbers CI scripts test: none may change.
        #expect(ExitStatus.allCases.map(\.rawValue) == [0, 1, 2, 3, 5, 64, 130])
    }

    @Test func theReadmeTableMatchesTheEnum() throws {
        #expect(try Self.readmeRows() == ExitStatus.allCases.map { Row(code: $0.rawValue, meaning: $0.meaning) })
    }

    /// An A/B run whose pairs could not decide ends undecided, exit 3, and the table's meaning of 3 says so.
    @Test func anUndecidedABRunIsNamedUnderItsCode() {
        let status = ExitStatus(GateReport.Outcome.undecided)
        #expect(status == .incomplete)
        #expect(status.meaning.contains("A/B run's (`--against`) pairs left a verdict undecided"), "\(status.meaning)")
    }

    /// How `run` and `demo` end, per `RunVerdict`: the signal's 128+N, the gate's status, else 0 or 3.
    @Test func everyRunVerdictHasItsCode() {
        let codes: [(RunVerdict, Int32)] = [
            (.interrupted(signal: SIGTERM), 143), (.interrupted(signal: nil), 130), (.judged(.passed), 0),
            (.judged(.failed), 2), (.judged(.undecided), 3), (.measured, 0), (.incomplete(unmeasured: 1, total: 4), 3),
        ]
        for (verdict, code) in codes { #expect(ExitCode(verdict).rawValue == code, "\(verdict)") }
    }

    /// No `ExitCode(3)` or `exit(1)` in the command layer: codes are named through `ExitStatus`.
    @Test func commandsNameTheirCodes() throws {
        let folder = Self.packageRoot.appendingPathComponent("Sources/launchbench")
        let files = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") && $0 != "ExitStatus.swift" }
        #expect(files.count > 10)
        let bareNumber = try Regex(#"(ExitCode|exit)\(\s*[0-9]"#)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains(bareNumber), "\(file) writes an exit code as a number; use ExitStatus")
        }
    }
}
