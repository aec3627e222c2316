import Foundation
import TestSupport
import Testing

/// Compares output with `Fixtures/golden/<name>`. When the file is missing or `RECORD_GOLDEN=1`
/// is set, records it and fails, so a recorded file is always looked at before it is trusted.
enum GoldenFile {
    static let root = PackageRoot.at("Fixtures/golden")

    static func check(_ actual: Data, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = root.appendingPathComponent(name)
        let record = ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1"
        if record || !FileManager.default.fileExists(atPath: url.path) {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try actual.write(to: url)
            Issue.record("recorded golden file \(name); check it and run again", sourceLocation: sourceLocation)
            return
        }
        let expected = try Data(contentsOf: url)
        if expected != actual {
            let expectedText = String(decoding: expected, as: UTF8.self)
            let actualText = String(decoding: actual, as: UTF8.self)
            let expectedLines = expectedText.components(separatedBy: "\n")
            let actualLines = actualText.components(separatedBy: "\n")
            let firstDifference = zip(expectedLines, actualLines).enumerated().first { $0.element.0 != $0.element.1 }
            let location =
                firstDifference.map { "line \($0.offset + 1):\n- \($0.element.0)\n+ \($0.element.1)" }
                ?? "line counts differ (\(expectedLines.count) vs \(actualLines.count))"
            Issue.record(
                "\(name) differs from its golden file at \(location)\n(RECORD_GOLDEN=1 to re-record)",
                sourceLocation: sourceLocation)
        }
    }
}
