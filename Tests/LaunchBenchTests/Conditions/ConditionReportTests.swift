import Foundation
import Testing

@testable import LaunchBench

/// Each device's conditions (run.json) appear beside it in the text, Markdown and HTML reports, with what
/// `--require` cost; a run.json without them (an older run) reads and reports as before.
@Suite struct ConditionReportTests {
    static func folder(conditions: DeviceConditionsRecord?) -> ResultsFolder {
        let samples = NotComparableTests.samples(osVersion: "16.7", median: 300)
        var outcome = RunManifest.DeviceOutcome(udid: "UDID-A", outcome: .measured)
        outcome.conditions = conditions
        let manifest = RunManifest(
            devices: [
                DeviceInfo(
                    udid: "UDID-A", name: "Phone", productType: "iPhone12,1", osVersion: "16.7", buildVersion: "20H19")
            ],
            deviceOutcomes: [outcome])
        return ResultsFolder(url: URL(fileURLWithPath: "/results"), manifest: manifest, samples: samples)
    }

    @Test func everyReportShowsTheConditionsBesideTheDevice() throws {
        var record = DeviceConditionsRecord()
        record.typical = DeviceConditions(
            batteryPercent: 87, charging: true, temperatureC: 33.2, freeStorageBytes: 31e9,
            unavailable: ["uptime": "not offered"])
        record.readings = 6
        record.required = "temperature<=35"
        record.iterationsOutside = 1
        record.waitedSeconds = 42.5
        let folder = Self.folder(conditions: record)
        let remark =
            "Conditions: battery 87 %, charging, 33.2 °C, 31 GB free, uptime, Low Power Mode, thermal state: not "
            + "reported (typical of 6 readings); --require temperature<=35: 1 iteration taken outside it, "
            + "waited 42.5 s."
        #expect(folder.summary.devices.first?.remarks.contains(remark) == true)
        #expect(SummaryTextReport.render(folder.summary).contains(remark))
        #expect(
            MarkdownReport.render(folder.summary, manifest: folder.manifest).contains(
                "> " + MarkdownReport.escape(remark)))
        #expect(
            HTMLReport.render(folder, summary: folder.summary).contains("Conditions: battery 87 %, charging, 33.2 °C"))
    }

    @Test func anOlderRunWithoutConditionsReportsAsBefore() throws {
        let folder = Self.folder(conditions: nil)
        #expect(folder.summary.devices.first?.remarks.contains { $0.hasPrefix("Conditions:") } == false)
        let json = #"{"devices":[],"deviceOutcomes":[{"udid":"U","outcome":"measured","notes":[]}]}"#
        let manifest = try JSONCoding.decoder().decode(RunManifest.self, from: Data(json.utf8))
        #expect(manifest.deviceOutcomes?.first?.conditions == nil)
    }
}
