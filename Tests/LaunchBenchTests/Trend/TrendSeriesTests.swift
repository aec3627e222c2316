import Foundation
import Testing

@testable import LaunchBench

/// What `trend` must never fold into one line: another app, another model, another iOS version under the same
/// UDID (emulated labs reuse UDIDs; a phone updated between runs), and what it must say about folders whose
/// reading skipped lines (impossible values, a run still being written).
@Suite struct TrendSeriesTests {
    static func root() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("trend-series-\(UUID().uuidString)")
    }

    @Test func anotherIOSVersionModelOrAppUnderTheSameUDIDStartsANewSeriesWithANote() throws {
        let root = Self.root()
        let paths = [
            try TrendTests.folder(root, "r1", median: 200, day: 1, udid: "UDID-A", seed: 1),
            try TrendTests.folder(root, "r2", median: 201, day: 2, udid: "UDID-A", seed: 2),
            try TrendTests.folder(root, "r3", median: 150, day: 3, udid: "UDID-A", seed: 3, osVersion: "15.0"),
            try TrendTests.folder(
                root, "r4", median: 120, day: 4, udid: "UDID-A", seed: 4, osVersion: "15.0", productType: "iPhone14,5"),
            try TrendTests.folder(
                root, "r5", median: 500, day: 5, udid: "UDID-A", seed: 5, osVersion: "15.0", productType: "iPhone14,5",
                app: "com.other"),
        ]
        let trend = Trend(paths: paths)
        let premain = trend.series.filter { $0.metric == .totalPremainMs }
        #expect(premain.map(\.points.count) == [2, 1, 1, 1])
        #expect(premain.map(\.device.osVersion) == ["14.8", "15.0", "15.0", "15.0"])
        #expect(premain.map(\.app) == ["com.example.app", "com.example.app", "com.example.app", "com.other"])
        // No step is drawn across a break: each new series starts without a change.
        #expect(premain.dropFirst().allSatisfy { $0.points[0].change == nil })
        let breaks = trend.folderNotes.filter { $0.contains("a new series starts there") }
        #expect(breaks.count == 3)
        #expect(breaks[0].contains("iOS 14.8 → 15.0 in \(paths[2])"))
        #expect(breaks[1].contains("model iPhone12,1 → iPhone14,5"))
        #expect(breaks[2].contains("app com.example.app → com.other"))
        #expect(trend.notes.contains(breaks[0]))
    }

    /// kdebug's total counts from the process's creation, dyld's printed statistics from dyld's start: the
    /// same launches read tens of ms apart, so a source change is a break, not a step. A run that does not say
    /// (an older file) continues the series it follows.
    @Test func anotherPremainSourceStartsANewSeriesWithANote() throws {
        let root = Self.root()
        let paths = [
            try TrendTests.folder(
                root, "r1", median: 200, day: 1, udid: "UDID-A", seed: 1, premainSource: .dyldStatistics),
            try TrendTests.folder(root, "r2", median: 201, day: 2, udid: "UDID-A", seed: 2),
            try TrendTests.folder(root, "r3", median: 240, day: 3, udid: "UDID-A", seed: 3, premainSource: .kdebug),
            try TrendTests.folder(root, "r4", median: 241, day: 4, udid: "UDID-A", seed: 4, premainSource: .kdebug),
        ]
        let trend = Trend(paths: paths)
        let premain = trend.series.filter { $0.metric == .totalPremainMs }
        #expect(premain.map(\.points.count) == [2, 2])
        #expect(premain.allSatisfy { !$0.points.contains(where: \.isStep) })
        let breaks = trend.folderNotes.filter { $0.contains("a new series starts there") }
        #expect(breaks.count == 1)
        #expect(breaks.first?.contains("pre-main source dyld-statistics → kdebug in \(paths[2])") == true)
    }

    @Test func impossibleValuesAndACutOffLineAreSkippedWithANoteNamingTheFolderAndLine() throws {
        let root = Self.root()
        let good = try TrendTests.folder(root, "good", median: 200, day: 1, udid: "UDID-A", seed: 1)
        func line(_ value: String) -> String {
            "{\"app_bundle_id\":\"com.example.app\",\"app_version\":\"1.0\",\"device_name\":\"P\",\"device_udid\":\"UDID-A\","
                + "\"iteration\":21,\"launch_kind\":\"cold\",\"os_version\":\"14.8\",\"product_type\":\"iPhone12,1\","
                + "\"run_id\":\"bad\",\"started_at\":\"2026-01-02T00:00:00Z\",\"status\":\"ok\",\"total_premain_ms\":\(value)}\n"
        }
        let bad = try TrendTests.folder(
            root, "bad", median: 200, day: 2, udid: "UDID-A", seed: 2,
            trailing: line("1e308") + line("-50") + "{\"app_bundle_id\":\"com.ex")
        let trend = Trend(paths: [good, bad])
        let premain = try #require(trend.series.first { $0.metric == .totalPremainMs })
        #expect(premain.points.map(\.n) == [20, 20], "the impossible values are not launches")
        let notes = trend.folderNotes.filter { $0.hasPrefix(bad + ": ") }
        #expect(notes.contains { $0.contains("line 21") && $0.contains("beyond what the run's timeout allows") })
        #expect(notes.contains { $0.contains("line 22") && $0.contains("-50 ms is negative") })
        #expect(notes.contains { $0.contains("line 23 is cut off") })
    }
}
