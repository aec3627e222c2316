import Foundation
import Testing

@testable import LaunchBench

/// What `parse` prints for a launch, from the core's writers: CSV quotes a file name as RFC 4180 says, and the
/// table lists what the parser warned about.
@Suite struct ParseOutputTests {
    static func launches(_ prefix: String) throws -> [LaunchRecord] {
        let name = try #require(ParserFixtures.names.first { $0.hasPrefix(prefix) })
        return LaunchLogParser.parse(try ParserFixtures.bytes(name))
    }

    @Test func csvQuotesAFileNameWithACommaAndQuotes() throws {
        let file = "/logs/=run 1, \"cold\".log"
        var output = ParseOutput(.csv)
        let rows = try Self.launches("10-").enumerated().map { output.launch($1, file: file, number: $0 + 1) }
        #expect(rows == ["\"/logs/=run 1, \"\"cold\"\".log\",1,53.37,28.47,,,,,,\r\n"])
    }

    @Test func theTableShowsTheParsersWarnings() throws {
        let table = ParseReport.table([ParsedLog(file: "10.log", launches: try Self.launches("10-"))])
        #expect(table.contains("53.37"))
        #expect(table.contains("warnings:"))
        #expect(table.contains("summary block cut short after 'dylib loading time'"))
    }
}
