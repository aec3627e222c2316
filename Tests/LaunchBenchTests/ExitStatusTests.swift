import Foundation
import Testing

/// The exit-code table (`ExitStatus` in Sources/launchbench/ExitStatus.swift) is the only place a code's meaning
/// is written: each code is distinct and documented there, README.md's table says the same, and the commands
/// name codes instead of writing numbers.
@Suite struct ExitStatusTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Row: Equatable, CustomStringConvertible {
        var code: Int32
        var meaning: String
        var description: String { "\(code) | \(meaning)" }
    }

    /// `(name, row)` per `case name = code` of the enum, the meaning being the `///` lines right above it.
    static func table() throws -> [(name: String, row: Row)] {
        let url = packageRoot.appendingPathComponent("Sources/launchbench/ExitStatus.swift")
        let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        var rows: [(name: String, row: Row)] = []
        for (index, line) in lines.enumerated() {
            let words = line.split(separator: " ")
            guard words.count == 4, words[0] == "case", words[2] == "=", let code = Int32(words[3]) else { continue }
            let comment = lines[..<index].reversed().prefix { $0.hasPrefix("///") }.reversed()
                .map { $0.dropFirst(3).trimmingCharacters(in: .whitespaces) }
            rows.append((String(words[1]), Row(code: code, meaning: comment.joined(separator: " "))))
        }
        return rows
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

    @Test func everyCodeIsDistinctAndDocumented() throws {
        let table = try Self.table()
        #expect(
            table.map(\.name) == [
                "success", "failure", "regression", "incomplete", "baselineNotFound", "usage", "interrupted",
            ])
        #expect(Set(table.map(\.row.code)).count == table.count)
        #expect(Set(table.map(\.name)).count == table.count)
        for (name, row) in table {
            #expect(!row.meaning.isEmpty, "ExitStatus.\(name) has no doc comment")
        }
        // The numbers CI scripts test: none may change.
        #expect(table.map(\.row.code) == [0, 1, 2, 3, 5, 64, 130])
    }

    @Test func theReadmeTableMatchesTheEnum() throws {
        #expect(try Self.readmeRows() == Self.table().map(\.row))
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
