import Foundation
import LaunchBench
import Testing

/// dyld's printTime truncates times of 1 s and over to 0.1 s (dyld-852.2 src/ImageLoader.cpp:1703–1707), finer
/// parts to 0.01 ms and every percentage to 0.1 %; the summary's total is its four parts plus the unprinted DOF
/// time (1735–1742). Expected values below are worked out by hand from those rules, not taken from the parser.
@Suite struct DyldPrecisionTests {
    private func records(_ text: String) -> [LaunchRecord] { LaunchLogParser.parse(Array(text.utf8)) }

    static let totalInSeconds = """
        Total pre-main time: 1.3 seconds (100.0%)
                 dylib loading time: 850.12 milliseconds (62.1%)
                rebase/binding time: 120.05 milliseconds (8.7%)
                    ObjC setup time:  97.11 milliseconds (7.1%)
                   initializer time: 300.00 milliseconds (21.9%)
                   slowest intializers :

        """

    @Test func aTotalPrintedInSecondsIsTheSumOfItsParts() throws {
        let record = try #require(records(Self.totalInSeconds).first)
        #expect(record.totalPremainMs == 1367.28)  // 850.12 + 120.05 + 97.11 + 300.00
        #expect(record.dylibLoadingMs == 850.12)
        let bounds = try #require(record.bounds.first)
        #expect(record.bounds.count == 1)
        #expect(bounds.metric == .totalPremainMs)
        #expect(bounds.lowMs == 1367.28)
        #expect(bounds.highMs == 1367.89)  // ObjC's 97.11 ms at 7.1 %: at most 97.12 / 0.071 = 1367.887 ms
        #expect(bounds.note == "dyld printed 1.3 s; parts sum to 1367.28 ms")
        #expect(record.warnings.count == 1)
    }

    /// The iPhone 6 capture (Fixtures/dyld/24): total and dylib loading both printed in seconds.
    @Test func aPartPrintedInSecondsIsNarrowedByItsPercentage() throws {
        let launches = LaunchLogParser.parse(
            try ParserFixtures.bytes("24-ios11.4.1-iphone6-cold-launch-seconds-two-runs.txt"))
        #expect(launches.count == 2)
        let first = try #require(launches.first)
        // Other parts: 26.57 + 274.89 + 73.07 = 374.53 ms. ObjC's 274.89 ms at 5.8 % caps the total at
        // 274.90 / 0.058 = 4739.66 ms; the printed 4.7 s floors it at 4700. dylib loading is then
        // 4700 − 374.56 − 1 (DOF) = 4324.44 up to 4739.66 − 374.53 = 4365.13 ms: the middle, 4344.78.
        #expect(abs((first.dylibLoadingMs ?? 0) - 4344.78) <= 0.02)
        #expect(abs((first.totalPremainMs ?? 0) - 4719.31) <= 0.02)
        let dylib = try #require(first.bounds.first { $0.metric == Metric.dylibLoadingMs })
        #expect(abs(dylib.lowMs - 4324.44) <= 0.01 && abs(dylib.highMs - 4365.13) <= 0.01)
        #expect(dylib.note.hasPrefix("dyld printed dylib loading time 4.3 s (92.0 %)"))
        // The second: 3.6 s, dylib 3.4 s at 94.2 %, others 207.79 ms. 94.2 % of at most (dylib + 208.82) ms caps
        // dylib at 0.943 · 208.82 / 0.057 = 3454.69 ms; printed 3.4 s floors it at 3400: the middle, 3427.34.
        let second = try #require(launches.last)
        #expect(abs((second.dylibLoadingMs ?? 0) - 3427.34) <= 0.02)
        #expect(abs((second.totalPremainMs ?? 0) - 3635.13) <= 0.02)
    }

    @Test func aWrappedPartLeavesTheTotalAsPrinted() throws {
        let text = Self.totalInSeconds.replacingOccurrences(
            of: "120.05 milliseconds (8.7%)", with: "411015771.6 seconds (192173638.0%)")
        let record = try #require(records(text).first)
        #expect(record.rebaseBindingMs == nil)
        #expect(record.totalPremainMs == 1300)
        #expect(record.bounds.isEmpty)
    }

    @Test func timesThatCannotAllHoldAreReadAsPrintedWithAWarning() throws {
        // 1.3 s cannot be four parts that sum to 1167.28 ms.
        let text = Self.totalInSeconds.replacingOccurrences(of: "850.12", with: "650.12")
        let record = try #require(records(text).first)
        #expect(record.totalPremainMs == 1300)
        #expect(record.warnings.contains { $0.contains("do not add up") })
    }

    @Test func parseJSONKeepsTheBounds() throws {
        let json = ParseReport.json(try #require(records(Self.totalInSeconds).first))
        #expect(json.contains("\"bounds\""))
        #expect(json.contains("dyld printed 1.3 s; parts sum to 1367.28 ms"))
        // A launch printed in ms has no bounds key at all.
        let plain = ParseReport.json(
            try #require(
                records(
                    DyldFormatTests.detailsOnly.replacingOccurrences(
                        of: "total time: 1.1 seconds", with: "total time: 911.77 milliseconds")
                ).first))
        #expect(!plain.contains("\"bounds\""))
    }
}
