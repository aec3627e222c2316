import Foundation
import LaunchBench
import Testing

/// Fault matrix: an app's stdout without a final newline glues itself to dyld's `Total pre-main time:` line.
@Suite struct GluedStatisticsTests {
    @Test(arguments: ["Loading config...", "[42%] ", "x", "héllo \u{1F680} ", "build time: "])
    func aTotalGluedAfterOtherOutputIsRead(prefix: String) {
        var parser = LaunchLogParser()
        parser.feed(Array((prefix + LaunchLogParserTests.summary).utf8))
        let records = parser.finish()
        #expect(records.count == 1)
        #expect(records.first?.totalPremainMs == 316.07)
        #expect(records.first?.dylibLoadingMs == 236.72)
        #expect(records.first?.warnings == [])
    }

    @Test func everySummaryLabelIsFoundGluedButOnlyWithDyldsTimeAndPercentage() {
        var parser = LaunchLogParser()
        let text = """
            appTotal pre-main time: 100.00 milliseconds (100.0%)
            app         dylib loading time:  40.00 milliseconds (40.0%)
            app        rebase/binding time:  10.00 milliseconds (10.0%)
            app            ObjC setup time:  20.00 milliseconds (20.0%)
            app           initializer time:  30.00 milliseconds (30.0%)
            my own initializer time: 5 ms
            warm-up time: 12.00 milliseconds (3.0%)

            """
        parser.feed(Array(text.utf8))
        let records = parser.finish()
        #expect(records.count == 1)
        let record = records.first
        #expect(record?.totalPremainMs == 100 && record?.dylibLoadingMs == 40 && record?.rebaseBindingMs == 10)
        #expect(record?.objcSetupMs == 20 && record?.initializerMs == 30)
    }

    /// A block whose total is lost for good is never silent: the warning reaches the summary's messages.
    @Test func aBlockWithoutItsTotalWarnsAndTheSummaryCountsIt() throws {
        var parser = LaunchLogParser()
        let withoutTotal = LaunchLogParserTests.summary.split(separator: "\n", omittingEmptySubsequences: false)
            .dropFirst().joined(separator: "\n")
        parser.feed(Array(withoutTotal.utf8))
        let record = parser.finishSingleLaunch()
        #expect(record.totalPremainMs == nil && record.dylibLoadingMs == 236.72)
        let warning = try #require(record.warnings.first)
        #expect(warning.contains("Total pre-main time"))
        let sample = Sample(
            runID: "r", deviceUDID: "U", deviceName: "Phone", productType: "iPhone12,1", osVersion: "14.8",
            appBundleID: "a", appVersion: "1", iteration: 1, kind: .cold, status: .ok, metrics: record.metrics,
            startedAt: Date(), warnings: record.warnings)
        let summary = RunSummary(samples: [sample, sample])
        let message = try #require(summary.devices.first?.messages.first { $0.text == warning })
        #expect(message.launches == 2)
    }
}
