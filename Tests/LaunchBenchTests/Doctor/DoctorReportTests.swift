import Testing

@testable import LaunchBench

/// The doctor's verdict and table: ready only when every step a run needs holds; text from the phone stays on
/// its line.
@Suite struct DoctorReportTests {
    static let device = DeviceInfo(
        udid: "00008030-001A2D4E0C388001", name: "Lab\r\nReady: every step holds", productType: "iPhone12,1",
        osVersion: "16.7", buildVersion: "20H19")

    @Test func readyOnlyWhenEveryNeededStepHolds() {
        var report = DoctorReport(
            device: Self.device,
            rows: [.holds(.usbmuxd, "1 device attached"), .unknown(.buildClosure, "none", needed: false)])
        #expect(report.ready)
        report.rows.append(.unknown(.launch, "not checked"))
        #expect(!report.ready)
        report.rows[2] = .fails(.firstFrame, "no event", fix: "capture", needed: false)
        #expect(report.ready)
        report.rows.append(.fails(.diskImage, "not mounted", fix: "mount it"))
        #expect(!report.ready)
    }

    @Test func theTableNamesEachFailingStepWithItsFixAndTheVerdict() {
        let report = DoctorReport(
            device: Self.device,
            rows: [
                .holds(.usbmuxd, "1 device attached"),
                .fails(.developerMode, "off", fix: "Turn it on in Settings"),
                .unknown(.launch, "not checked: the device went away"),
            ])
        let text = report.render()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        // The phone's name cannot add a line of its own.
        #expect(lines.first?.contains("Lab\\u{d}\\u{a}Ready") == true, "\(text)")
        #expect(!lines.contains { $0.hasPrefix("Ready") })
        #expect(lines.contains { $0.hasPrefix("Developer Mode") && $0.contains("fails") && $0.contains("yes") })
        #expect(lines.contains("  Developer Mode: Turn it on in Settings"))
        #expect(lines.contains("Not ready: Developer Mode fails; 1 needed step is unknown."), "\(text)")
    }

    @Test func uncheckedStepsAreUnknownWithTheReason() {
        let rows = DoctorReport.unchecked([.launch, .delivery], because: "not checked: usbmuxd cannot be reached")
        #expect(rows.map(\.step) == [.launch, .delivery])
        #expect(rows.allSatisfy { $0.state == .unknown && $0.needed && $0.fix == nil })
        // A fact to report, not a requirement, stays so when it is not checked.
        #expect(DoctorReport.unchecked([.firstFrame], because: "-").first?.needed == false)
    }
}
