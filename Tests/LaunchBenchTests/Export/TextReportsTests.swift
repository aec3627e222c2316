import Foundation
import LaunchBench
import Testing

@Suite struct TextReportsTests {
    private func fixtureSummary() throws -> (RunSummary, ResultsFolder) {
        let dir = try ResultsFixture.copy("mixed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = try ResultsFolder.load(dir)
        return (folder.summary, folder)
    }

    @Test func aMetricMeasuredInOneKindIsNotCalledUnmeasured() throws {
        func sample(_ udid: String, _ kind: LaunchKind, _ metrics: [Metric: Double]) -> Sample {
            Sample(
                runID: "r", deviceUDID: udid, deviceName: udid, productType: "iPhone12,1", osVersion: "14.8",
                appBundleID: "x", appVersion: "1", iteration: 1, kind: kind, status: .ok, metrics: metrics,
                startedAt: Date())
        }
        // A: pre-main printed on the cold launch only, markers on both. B: markers only (as on iOS 15+).
        let summary = RunSummary(samples: [
            sample("A", .cold, [.totalPremainMs: 400, .firstFrameMs: 700]), sample("A", .warm, [.firstFrameMs: 300]),
            sample("B", .cold, [.firstFrameMs: 500]),
        ])
        let a = try #require(summary.devices.first { $0.device.udid == "A" })
        let (rows, unmeasuredOnA) = a.measuredRows(of: summary.metrics)
        #expect(
            rows.map { "\($0.kind) \($0.metric.rawValue)" } == [
                "cold total_premain_ms", "cold first_frame_ms", "warm first_frame_ms",
            ])
        #expect(unmeasuredOnA.isEmpty)
        let b = try #require(summary.devices.first { $0.device.udid == "B" })
        #expect(b.measuredRows(of: summary.metrics).unmeasured == [.totalPremainMs])
        let text = SummaryTextReport.render(summary)
        #expect(text.components(separatedBy: "not measured: total_premain_ms").count == 2)  // B only
    }

    @Test func markdownEscapesPipesAndHTML() {
        #expect(MarkdownReport.escape("a|b") == "a\\|b")
        #expect(MarkdownReport.escape("<script>") == "\\<script\\>")
        #expect(MarkdownReport.escape("x\\|y") == "x\\\\\\|y")
        #expect(MarkdownReport.escape("two\nlines") == "two\\\\u{a}lines")
    }

    @Test func markdownTableHasOneRowPerMeasuredMetricAndStaysInItsColumns() throws {
        let sample = Sample(
            runID: "r", deviceUDID: "U", deviceName: "Team | QA", productType: "iPhone12,1", osVersion: "14.8",
            appBundleID: "x", appVersion: "1", iteration: 1, kind: .cold, status: .ok,
            metrics: [.totalPremainMs: 400, .firstFrameMs: 700], startedAt: Date())
        let markdown = MarkdownReport.render(RunSummary(samples: [sample]))
        func unescapedPipes(_ row: Substring) -> Int {
            let characters = Array(row)
            return characters.indices.filter { characters[$0] == "|" && ($0 == 0 || characters[$0 - 1] != "\\") }.count
        }
        // The overview: 8 columns → 9 unescaped pipes, the name's pipe escaped.
        let overview = markdown.split(separator: "\n").filter { $0.hasPrefix("| Team") }
        #expect(overview.count == 2)
        #expect(overview.allSatisfy { unescapedPipes($0) == 9 })
        #expect(overview[0].hasPrefix("| Team \\| QA (iPhone 11, iOS 14.8) | cold | total pre-main | 400.0 |"))
        // The details: 10 columns → 11 unescaped pipes.
        let rows = markdown.split(separator: "\n").filter { $0.hasPrefix("| cold") }
        #expect(rows.count == 2)
        #expect(rows.allSatisfy { unescapedPipes($0) == 11 })
        #expect(markdown.contains("<summary>All metrics: Team | QA (iPhone 11 (iPhone12,1), iOS 14.8)</summary>"))
    }

    @Test func markdownOfTheFixture() throws {
        let (summary, folder) = try fixtureSummary()
        let markdown = MarkdownReport.render(summary, manifest: folder.manifest, notes: folder.notes)
        #expect(markdown.hasPrefix("### Launch times of com.example.sample 2.3 (41)\n"))
        #expect(
            markdown.contains(
                "| Ana's iPhone (iPhone 11, iOS 14.8) | cold | first frame | 616.9 | 647.7 | 4.3 | 6 | 1 |"))
        #expect(
            markdown.contains(
                "| \\<script\\>alert(1)\\</script\\> (iPhone 13, iOS 16.7.2) | warm | first frame | 228.4 |"))
        #expect(
            markdown.contains(
                "<summary>All metrics: &lt;script&gt;alert(1)&lt;/script&gt; (iPhone 13 (iPhone14,5), iOS 16.7.2)</summary>"
            ))
        #expect(
            markdown.contains(
                "| cold | `total_premain_ms` | 6 | 1 | 365.8 | 382.4 | 352.6 | 387.6 | 3.5 | 352.6–387.6 |"))
        #expect(markdown.contains("| cold | `first_frame_ms` | 4 | 0 | 502.8 |"))
        #expect(markdown.contains("n < 6"))
        #expect(markdown.contains("- Ana's iPhone, cold: 1 of 7 launches failed (1 timeout)"))
        #expect(!markdown.contains("<script>"))
    }

    @Test func terminalSummaryColoursOnlyWhenAsked() throws {
        let (summary, _) = try fixtureSummary()
        let plain = TerminalSummary.render(summary, color: false)
        #expect(!plain.contains("\u{1B}["))
        #expect(plain.contains("Ana's iPhone"))
        #expect(plain.contains("total pre-main") && plain.contains("first frame"))
        #expect(plain.contains("cold: 1 of 7 launches failed (1 timeout)"))
        // The iOS 16 device has no pre-main: only its first frame.
        let scriptBlock = try #require(plain.components(separatedBy: "<script>alert(1)</script>").last)
        #expect(!scriptBlock.contains("total pre-main"))
        #expect(scriptBlock.contains("first frame"))
        let coloured = TerminalSummary.render(summary, color: true)
        #expect(coloured.contains("\u{1B}[31m"), "rows with failures in red")
        #expect(coloured.contains("\u{1B}[1mAna's iPhone\u{1B}[0m"))
    }

    @Test func terminalOutputCannotBeHijackedByADeviceName() {
        let sample = Sample(
            runID: "r", deviceUDID: "U", deviceName: "evil\u{1B}]0;pwned\u{7}\nname", productType: "p", osVersion: "1",
            appBundleID: "x", appVersion: "1", iteration: 1, kind: .cold, status: .ok, metrics: [.wallMs: 5],
            startedAt: Date())
        let text = TerminalSummary.render(RunSummary(samples: [sample]), color: false)
        #expect(!text.contains("\u{1B}") && !text.contains("\u{7}"))
        #expect(text.contains("evil\\u{1b}]0;pwned\\u{7}\\u{a}name"))
        let table = SummaryTextReport.render(RunSummary(samples: [sample]))
        #expect(!table.contains("\u{1B}"))
    }

    @Test func terminalSummaryOfADeviceThatMeasuredNothingShowsItsFailures() {
        let failed = (1...3).map { i in
            Sample(
                runID: "r", deviceUDID: "U", deviceName: "Lab 1", productType: "iPhone12,1", osVersion: "14.8",
                appBundleID: "x", appVersion: "1", iteration: i, kind: .cold, status: .installFailed, startedAt: Date())
        }
        let text = TerminalSummary.render(RunSummary(samples: failed), color: false)
        #expect(text.contains("Nothing was measured on this device."))
        #expect(text.contains("cold: 3 of 3 launches failed (3 install-failed)"))
        #expect(!text.contains("median ms"))
    }

    @Test func tableFormatListsUnmeasuredMetricsInsteadOfEmptyRows() throws {
        let (summary, folder) = try fixtureSummary()
        let table = SummaryTextReport.render(summary, notes: folder.notes)
        #expect(table.hasPrefix("note: samples.jsonl line 32 is cut off"))
        #expect(
            table.contains(
                "not measured: total_premain_ms, dylib_loading_ms, rebase_binding_ms, objc_setup_ms, initializer_ms"))
        #expect(table.contains("cold: 1 of 5 launches printed no timing (no-metrics)"))
    }
}
