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

/// Issue 44: a capture goes into a new or empty folder, never over a user's files, and a refusal speaks of the
/// capture folder (no temp-folder wording telling the user to `rm -rf` a project).
extension DoctorCaptureTests {
    private static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("doctor-capture-\(UUID().uuidString.prefix(8))")
    }

    @Test func aFolderHoldingFilesIsRefusedAndLeftAsItWas() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        #expect(chmod(folder.path, 0o700) == 0)
        try Data("my project\n".utf8).write(to: folder.appendingPathComponent("README.txt"))
        let error = #expect(throws: LaunchBenchError.self) {
            try DoctorCapture.write(
                DoctorOutcome(report: DoctorReport(device: nil, rows: [])), to: folder)
        }
        let message = error?.localizedDescription ?? ""
        #expect(
            message.contains("--capture needs a new or empty folder") && message.contains("README.txt"), "\(message)")
        #expect(!message.contains("rm -rf") && !message.contains("TMPDIR"), "\(message)")
        #expect(try String(contentsOf: folder.appendingPathComponent("README.txt"), encoding: .utf8) == "my project\n")
    }

    @Test func anEmptyFolderOfYoursIsTakenAndMadePrivateALinkIsNot() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        #expect(chmod(folder.path, 0o755) == 0)
        #expect(try DoctorCapture.prepare(folder) == false)
        let mode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
        let link = folder.appendingPathExtension("link")
        defer { try? FileManager.default.removeItem(at: link) }
        #expect(symlink(folder.path, link.path) == 0)
        #expect(throws: LaunchBenchError.self) { try DoctorCapture.prepare(link) }
    }
}
