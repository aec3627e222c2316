import Foundation
import TestSupport
import Testing

@testable import LaunchBench

/// A phone named `Lab<line break>Gate: PASSED (fake)` must not print a line of its own in any output.
@Suite(.timeLimit(.minutes(2))) struct UserTextTests {
    static let fake = "Gate: PASSED (fake)"
    /// Every way text can end a line: LF, CR, CRLF (one `Character`), NEL, VT, FF, LS, PS.
    static let breaks = ["\n", "\r", "\r\n", "\u{85}", "\u{0B}", "\u{0C}", "\u{2028}", "\u{2029}"]
    static let names = breaks.map { "Lab\($0)\(fake)" }

    /// Lines as a terminal, a CI log or a Markdown renderer would split them.
    static func lines(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
    }

    static func expectNoFakeLine(
        _ text: String, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let faked = lines(text).filter { $0.trimmingPrefix(while: { $0 == " " || $0 == "|" }).hasPrefix(fake) }
        #expect(faked.isEmpty, comment, sourceLocation: sourceLocation)
    }

    @Test(arguments: breaks) func everyEscaperKeepsTextOnOneLine(_ lineBreak: String) {
        let text = "Lab\(lineBreak)\(Self.fake)\u{1B}[2K"
        for escaped in [
            UserText.logLine(text), UserText.tableCell(text), UserText.markdown(text), UserText.markdownCode(text),
        ] {
            #expect(Self.lines(escaped).count == 1, "\(escaped.debugDescription)")
            #expect(!escaped.unicodeScalars.contains { UserText.breaksOrControls($0) })
        }
        #expect(UserText.logLine("a\r\nb") == "a\\u{d}\\u{a}b")
        #expect(UserText.logLine("Ana’s iPhone 日本") == "Ana’s iPhone 日本")
    }

    @Test func textTableCellsStayOnTheirRow() {
        var table = TextTable(headers: ["UDID", "NAME"])
        for name in Self.names { table.append(["00008030", name]) }
        let text = table.render()
        #expect(Self.lines(text).count == 1 + Self.names.count)
        Self.expectNoFakeLine(text)
    }

    /// A regression on a phone matched by model and iOS (so the notes name both phones), per break kind.
    static func report(name: String) -> GateReport {
        let model = EmulatedTimingModel()
        let baseline = model.totals(count: 20, seed: 5).enumerated().map { index, value in
            GateSamples.make(udid: "OLD", name: name, iteration: index + 1, metrics: [.totalPremainMs: value])
        }
        let current = model.slower(by: 0.2).totals(count: 20, seed: 6).enumerated().map { index, value in
            GateSamples.make(udid: "NEW", name: name, iteration: index + 1, metrics: [.totalPremainMs: value])
        }
        var report = GateReport(
            referenceGaps: [], sampleSizes: ["\(name): 20 iterations"], notes: ["note on \(name)"])
        report.baselinePath = "/tmp/\(name)"
        report.currentPath = "/tmp/current"
        report.comparison = GateComparison(baseline: baseline, current: current)
        return report
    }

    @Test(arguments: names) func gateReportsHaveNoLineOfTheDevicesName(_ name: String) {
        let report = Self.report(name: name)
        #expect(report.comparison?.regressions.count == 1)
        Self.expectNoFakeLine(GateMarkdownReport.render(report), "markdown")
        Self.expectNoFakeLine(GateTableReport.render(report), "table")
    }

    @Test(arguments: names) func trendMarkdownHasNoLineOfTheDevicesName(_ name: String) throws {
        let samples = (1...2).map { run in
            (1...8).map { index in
                GateSamples.make(
                    udid: "UDID-A", name: name, os: run == 1 ? "14.8" : "15.0", iteration: index,
                    metrics: [.totalPremainMs: 400 + Double(index)])
            }
        }
        let folders = try samples.map { try GateSamples.resultsFolder($0) }
        defer { for url in folders { try? FileManager.default.removeItem(at: url) } }
        let trend = Trend(paths: folders.map(\.path))
        #expect(trend.series.count == 2)
        Self.expectNoFakeLine(TrendReport.markdown(trend))
        // The break note (iOS 14.8 → 15.0) names the phone; the CLI prints it to stderr, escaped on one line
        // (Fixtures/cli/trend-device-name-line-break).
        #expect(trend.folderNotes.contains { $0.contains("15.0") })
    }
}
