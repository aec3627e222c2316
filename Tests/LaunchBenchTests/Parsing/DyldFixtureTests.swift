import Foundation
import LaunchBench
import Testing

/// Every capture in `Fixtures/dyld/` against its golden result, which was written by hand from
/// reading the capture (see SOURCES.md for what is odd about each), whole, with CRLF line ends,
/// and fed in pieces split anywhere.
@Suite struct DyldFixtureTests {
    /// Lines of each capture that belong to no format (other programs' output), counted by hand.
    static let unrecognizedLines: [String: Int] = [
        "01": 0, "02": 0, "04": 0, "06": 0, "08": 0,
        "10": 1,  // the author's `         ...`
        "12": 0, "14": 0, "16": 0,
        "17": 2,  // the shell command and `hello world`
        "18": 16,  // DYLD_PRINT_SEGMENTS lines and `dyld: Using shared cached for …`
        "19": 6,  // uvicorn and progress-bar lines around the glued dyld4 line
        "21": 4,  // shell lines, the author's `...`, the NSLog line
        "24": 0,
        "27": 0,  // the dyld3 closure note is recognised (it only means: no statistics)
        "30": 0, "33": 0,
    ]

    @Test func everySharedCaptureIsHere() {
        #expect(ParserFixtures.names.count == 17)
        #expect(Set(ParserFixtures.names.map { String($0.prefix(2)) }) == Set(Self.unrecognizedLines.keys))
    }

    @Test(arguments: ParserFixtures.names)
    func matchesGolden(name: String) throws {
        let bytes = try ParserFixtures.bytes(name)
        let expected = try ParserFixtures.golden(name)
        let (records, unrecognized) = LaunchLogParser.parse(bytes, cuts: [])
        let actual = try ParserFixtures.json(records)
        #expect(ParserFixtures.sameJSON(actual, expected), "\(name):\n\(ParserFixtures.pretty(actual))")
        #expect(unrecognized == Self.unrecognizedLines[String(name.prefix(2))])
    }

    @Test(arguments: ParserFixtures.names)
    func crlfReadsTheSame(name: String) throws {
        let bytes = try ParserFixtures.bytes(name)
        var crlf: [UInt8] = []
        for byte in bytes {
            if byte == 0x0A { crlf.append(0x0D) }
            crlf.append(byte)
        }
        let plain = LaunchLogParser.parse(bytes, cuts: [])
        // Every chunk ending between CR and LF, too.
        let betweenCRAndLF = crlf.indices.filter { crlf[$0] == 0x0A }
        let split = LaunchLogParser.parse(crlf, cuts: betweenCRAndLF)
        #expect(LaunchLogParser.parse(crlf) == plain.records)
        #expect(split.records == plain.records)
        #expect(split.unrecognized == plain.unrecognized)
    }

    @Test(arguments: ParserFixtures.names)
    func chunkBoundariesDoNotMatter(name: String) throws {
        let bytes = try ParserFixtures.bytes(name)
        let whole = LaunchLogParser.parse(bytes, cuts: [])
        // One byte at a time: every boundary, including inside UTF-8 characters (19 has Hangul and block glyphs).
        #expect(LaunchLogParser.parse(bytes, cuts: Array(bytes.indices)).records == whole.records)
        var random = SeededRandom(seed: UInt64(name.prefix(2))!)
        for _ in 0..<25 {
            let cuts = (0..<Int.random(in: 1...8, using: &random)).map { _ in
                Int.random(in: 0...bytes.count, using: &random)
            }.sorted()
            let split = LaunchLogParser.parse(bytes, cuts: cuts)
            #expect(split.records == whole.records, "cuts \(cuts)")
            #expect(split.unrecognized == whole.unrecognized)
        }
    }

    @Test func allCapturesInOneLogReadAsTheirLaunchesInOrder() throws {
        // As a harness log of many launches: each capture, then the app's `done`.
        var all: [UInt8] = []
        var expected: [LaunchRecord] = []
        for name in ParserFixtures.names {
            let bytes = try ParserFixtures.bytes(name)
            all += bytes + Array("[launchbench] done\n".utf8)
            var records = LaunchLogParser.parse(bytes)
            if !records.isEmpty { records[records.count - 1].done = true }
            expected += records
        }
        var parser = LaunchLogParser()
        parser.feed(all)
        #expect(parser.finish() == expected)
        #expect(parser.unrecognizedLineCount == Self.unrecognizedLines.values.reduce(0, +))
    }
}
