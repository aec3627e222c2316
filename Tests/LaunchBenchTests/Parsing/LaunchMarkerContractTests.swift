import Foundation
import LaunchBench
import LaunchProbe
import Testing

/// LaunchProbe (in the app), the emulated iPhone and the parser agree on the marker lines: the probe
/// spells the format itself (it depends on nothing), so this holds it to `LaunchMarkerFormat`, and the
/// parser reads back what both print.
@Suite struct LaunchMarkerContractTests {
    @Test(arguments: [0.0, 0.04, 0.05, 12.25, 412.66, 99_999.95])
    func theProbePrintsTheSharedFormat(milliseconds: Double) {
        #expect(
            LaunchProbe.markerLine(name: "main", milliseconds: milliseconds)
                == LaunchMarkerFormat.markerLine(name: "main", milliseconds: milliseconds))
        #expect(LaunchProbe.doneLine == LaunchMarkerFormat.doneLine)
    }

    @Test func theParserReadsWhatTheProbePrints() throws {
        let output =
            LaunchProbe.markerLine(name: "main", milliseconds: 120.04)
            + LaunchProbe.markerLine(name: "didFinishLaunching", milliseconds: 215.0)
            + LaunchProbe.markerLine(name: "firstFrame", milliseconds: 265.96) + LaunchProbe.doneLine
        let record = try #require(LaunchLogParser.parse(Data(output.utf8)).first)
        #expect(record.markers == ["main": 120.0, "didFinishLaunching": 215.0, "firstFrame": 266.0])
        #expect(record.done)
        #expect(record.warnings.isEmpty)
    }
}
