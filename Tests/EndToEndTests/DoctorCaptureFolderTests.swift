import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

/// Issue 44: `doctor --capture DIR` on a folder that holds files is refused before the first step, in words for a
/// capture folder, and the folder's files are left as they were.
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(5))) struct DoctorCaptureFolderTests {
    @Test func aCaptureFolderHoldingFilesIsRefusedBeforeAnyStep() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let project = EndToEnd.temporaryFolder("doctor-capture-project")
            try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
            #expect(chmod(project.path, 0o700) == 0)
            let readme = project.appendingPathComponent("README.txt")
            try Data("my project\n".utf8).write(to: readme)
            let outcome = try await LaunchbenchCLI.run(
                [
                    "doctor", "--device", lab.devices[0].udid, "--usbmuxd", lab.usbmuxdSocketAddress, "--capture",
                    project.path,
                ],
                environment: ["NO_COLOR": "1"], timeout: .seconds(180))
            #expect(outcome.status == 64, "\(outcome.stdout)\n\(outcome.stderr)")
            #expect(outcome.stderr.contains("--capture needs a new or empty folder"), "\(outcome.stderr)")
            #expect(!outcome.stderr.contains("rm -rf"), "\(outcome.stderr)")
            // Before the first step: no row was checked, none printed.
            #expect(
                !outcome.stderr.contains("usbmuxd reachable:") && outcome.stdout.isEmpty,
                "\(outcome.stdout)\(outcome.stderr)")
            #expect(try String(contentsOf: readme, encoding: .utf8) == "my project\n")
        }
    }
}
