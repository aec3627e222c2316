import Foundation
import Testing

@testable import LaunchBench

/// Each device's launcher (`--launcher`: process control or debugserver) is in every report: the end-of-run
/// summary, `report --format table`, the Markdown and HTML reports (from run.json), and samples.csv (per launch).
@Suite struct LauncherReportsTests {
    /// A run of two devices, the first launched through process control, the second through debugserver.
    static func folder() -> (ResultsFolder, [Sample]) {
        func sample(_ udid: String, _ launcher: LaunchMethod?) -> Sample {
            var sample = Sample(
                runID: "r", deviceUDID: udid, deviceName: "Phone \(udid)", productType: "iPhone14,5",
                osVersion: "16.7", appBundleID: "com.example.sample", appVersion: "1.0 (1)", iteration: 1,
                kind: .cold, status: .ok, metrics: [.firstFrameMs: 500], startedAt: Date(timeIntervalSince1970: 0))
            sample.launcher = launcher
            return sample
        }
        var controlled = RunManifest.DeviceOutcome(udid: "U1", outcome: .measured)
        controlled.launcher = .processControl
        var debugged = RunManifest.DeviceOutcome(udid: "U2", outcome: .measured)
        debugged.launcher = .debugserver
        let manifest = RunManifest(runID: "r", deviceOutcomes: [controlled, debugged])
        let samples = [sample("U1", .processControl), sample("U2", .debugserver), sample("U3", nil)]
        return (ResultsFolder(url: URL(fileURLWithPath: "/nonexistent"), manifest: manifest, samples: samples), samples)
    }

    /// The device named last before `text` in `report` (`nil` when `text` is not there exactly once).
    static func device(before text: String, in report: String) -> String? {
        let ranges = report.ranges(of: text)
        guard ranges.count == 1, let at = ranges.first?.lowerBound else { return nil }
        let names = ["Phone U1", "Phone U2", "Phone U3"]
        return names.max { name, other in
            (report[..<at].ranges(of: name).last?.lowerBound ?? report.startIndex)
                < (report[..<at].ranges(of: other).last?.lowerBound ?? report.startIndex)
        }
    }

    @Test func everyReportNamesEachDevicesLauncherInItsSection() throws {
        let (folder, _) = Self.folder()
        let reports = [
            "terminal": TerminalSummary.render(folder.summary, color: false),
            "table": SummaryTextReport.render(folder.summary),
            "markdown": MarkdownReport.render(folder.summary, manifest: folder.manifest),
            "html": HTMLReport.render(folder, summary: folder.summary),
        ]
        for (name, report) in reports {
            #expect(Self.device(before: "Launcher: processcontrol", in: report) == "Phone U1", "\(name): \(report)")
            #expect(Self.device(before: "Launcher: debugserver", in: report) == "Phone U2", "\(name): \(report)")
            // A device run.json does not describe (an older file) gets no line.
            #expect(report.ranges(of: "Launcher:").count == 2, "\(name)")
        }
    }

    @Test func devicectlIsNamedAsTheLauncherOfItsDevices() {
        #expect(ResultsFolder.launcherRemark(.debugserver, engine: "devicectl").hasPrefix("Launcher: devicectl"))
        #expect(
            ResultsFolder.launcherRemark(.debugserver, engine: "pymobiledevice3").hasPrefix("Launcher: debugserver"))
    }

    @Test func samplesCSVHasEachLaunchsLauncher() throws {
        let (_, samples) = Self.folder()
        let rows = CSVWriterTests.parse(SamplesCSV.csv(samples).text)
        let column = try #require(rows[0].firstIndex(of: "launcher"))
        #expect(rows.dropFirst().map { $0[column] } == ["processcontrol", "debugserver", ""])
    }
}
