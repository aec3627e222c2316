import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import LaunchEngines
import TestSupport
import Testing

/// An installed launchbench finds the pymobiledevice3 of the clone it was installed from, from any folder and
/// however it is started (issue 43 item 1: it used to resolve `CommandLine.arguments[0]`, so from PATH or another
/// folder the iOS 17+ phones got no engine). `Scripts/install --binary` installs the binary under test (the one
/// Scripts/test's release pass installed, else the debug build) into a private prefix, with the same record of
/// pymobiledevice3 a full install writes; the prefix is outside the clone, so only that record can lead back.
@Suite(
    .tags(.emulator, .subprocess), .timeLimit(.minutes(5)),
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: PackageRoot.at(".venv-pmd3/bin/pymobiledevice3").path),
        "the clone has no .venv-pmd3: run Scripts/bootstrap"))
struct InstalledBinaryTests {
    @Test func theInstalledBinaryFindsPymobiledevice3FromAnyFolderHoweverItIsStarted() async throws {
        let scratch = EndToEnd.temporaryFolder("installed")
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: scratch.path)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let prefix = scratch.appendingPathComponent("prefix").path
        let install = try await ChildProcess.run(
            PackageRoot.at("Scripts/install").path, ["--binary", try LaunchbenchCLI.executable(), prefix],
            timeout: .seconds(120))
        let said = String(decoding: install.stdout, as: UTF8.self) + install.stderr
        #expect(install.status == 0, "\(said)")
        let program = try #require(ExecutablePath.resolved(PackageRoot.at(".venv-pmd3/bin/pymobiledevice3").path))
        #expect(said.contains("Recorded pymobiledevice3 (\(program))"), "\(said)")

        let elsewhere = scratch.appendingPathComponent("elsewhere")
        let links = scratch.appendingPathComponent("links")
        for folder in [elsewhere, links] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let installed = prefix + "/bin/launchbench"
        try FileManager.default.createSymbolicLink(
            atPath: links.appendingPathComponent("launchbench").path, withDestinationPath: installed)
        try FileManager.default.createSymbolicLink(
            atPath: links.appendingPathComponent("lb").path, withDestinationPath: installed)
        // PATH holds no pymobiledevice3 (the system folders), so only the record can find it.
        let system = "/usr/bin:/bin"
        #expect(Pymobiledevice3Locator.onPath("pymobiledevice3", environment: ["PATH": system]) == nil)
        let ways: [(label: String, command: String, path: String)] = [
            ("by absolute path", installed, system),
            ("by bare name on PATH", "launchbench", prefix + "/bin:" + system),
            ("through a symlink", links.appendingPathComponent("lb").path, system),
            ("through a symlink on PATH", "launchbench", links.path + ":" + system),
        ]
        let phones = [
            EmulatedDeviceSpec.numbered(1, productType: "iPhone15,4", osVersion: "17.5"),
            .numbered(2, productType: "iPhone17,3", osVersion: "18.6"),
            .numbered(3, productType: "iPhone16,1", osVersion: "26.1"),
        ]
        try await PrivateLab.with(devices: phones) { lab in
            for way in ways {
                // `cd` first: run from a folder with no clone above it, as a user would.
                let outcome = try await ChildProcess.run(
                    "/bin/sh",
                    [
                        "-c", "cd \"$0\" && exec \"$@\"", elsewhere.path, way.command, "devices", "--json",
                        "--usbmuxd", lab.usbmuxdSocketAddress,
                    ],
                    environment: ["PATH": way.path, Pymobiledevice3Locator.environmentVariable: "", "NO_COLOR": "1"],
                    timeout: .seconds(60))
                let text = String(decoding: outcome.stdout, as: UTF8.self)
                #expect(outcome.status == 0, "\(way.label): \(outcome.stderr)")
                let rows = try JSONSerialization.jsonObject(with: outcome.stdout) as? [[String: String]] ?? []
                for phone in phones {
                    let row = rows.first { $0["udid"] == phone.udid }
                    #expect(row?["engine"] == "pymobiledevice3", "\(way.label), iOS \(phone.osVersion): \(text)")
                    #expect(row?["engineReason"]?.contains(program) == true, "\(way.label): \(text)")
                }
            }
        }
    }
}
