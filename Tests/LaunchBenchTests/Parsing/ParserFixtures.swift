import Foundation
import LaunchBench
import TestSupport

/// The dyld captures in `Fixtures/dyld/` and their hand-written expected results.
enum ParserFixtures {
    static let folder = PackageRoot.at("Fixtures/dyld")

    /// `NN-*.txt` file names, sorted.
    static let names: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".txt") }.sorted()
    }()

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    static func golden(_ name: String) throws -> Any {
        let url = folder.appendingPathComponent("golden").appendingPathComponent(
            name.replacingOccurrences(of: ".txt", with: ".json"))
        return try JSONSerialization.jsonObject(with: Data(contentsOf: url))
    }

    /// The records as `launchbench parse` prints them (without the `file` key), decoded for comparison.
    static func json(_ records: [LaunchRecord]) throws -> Any {
        let text = "[" + records.map(ParseReport.json).joined(separator: ",") + "]"
        return try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    static func sameJSON(_ a: Any, _ b: Any) -> Bool {
        (a as? NSObject)?.isEqual(b) ?? false
    }

    static func pretty(_ value: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys])
        else {
            return "\(value)"
        }
        return String(decoding: data, as: UTF8.self)
    }
}

extension LaunchLogParser {
    /// Feeds `bytes` in pieces whose ends `cuts` (ascending offsets) choose.
    static func parse(_ bytes: [UInt8], cuts: [Int]) -> (records: [LaunchRecord], unrecognized: Int) {
        var parser = LaunchLogParser()
        var start = 0
        for cut in cuts + [bytes.count] where cut >= start {
            parser.feed(bytes[start..<cut])
            start = cut
        }
        let records = parser.finish()
        return (records, parser.unrecognizedLineCount)
    }
}
