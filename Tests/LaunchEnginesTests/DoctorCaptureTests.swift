import Foundation
import LaunchBench
import Testing

@testable import LaunchEngines

/// `doctor --capture`: private folder, and no line of a log that names a pair-record key.
@Suite struct DoctorCaptureTests {
    @Test func logLinesNamingAPrivateKeyAreWithheld() {
        let log = "connected\nlockdown: {'HostID': 'ABC-123', 'SystemBUID': 'XYZ'}\nsession ready\n"
        let kept = DoctorCapture.withholdingPrivateLines(log)
        #expect(!kept.contains("ABC-123") && !kept.contains("XYZ"))
        #expect(kept == "connected\n[launchbench doctor: a line naming HostID was withheld]\nsession ready\n")
    }

    @Test func theFolderIsPrivateAndSaysWhatItLeavesOut() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "doctor-capture-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        let outcome = DoctorOutcome(
            report: DoctorReport(device: nil, rows: [.fails(.usbmuxd, "refused", fix: "start it")]))
        let files = try DoctorCapture.write(outcome, to: folder)
        #expect(files == ["README.txt", "doctor.txt"])
        let mode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
        let readme = try String(contentsOf: folder.appendingPathComponent("README.txt"), encoding: .utf8)
        #expect(readme.contains("Not included: the pair record, keys, certificates and host IDs"))
    }
}
