import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

/// launchbench's own environment holds libusbmuxd's `USBMUXD_SOCKET_ADDRESS=UNIX:/path`, which pymobiledevice3's
/// iOS 17.4+ tunnel path reads itself and cannot parse: the sidecar must get the bare path, in both variables.
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(5))) struct SidecarEnvironmentTests {
    @Test func theSidecarGetsTheBareSocketPathWhateverTheEnvironmentHolds() async throws {
        try await PrivateLab.with(devices: [.numbered(1, productType: "iPhone16,1", osVersion: "17.5")]) { lab in
            let socket = try #require(lab.socketPath)
            let app = try EndToEnd.makeApp("Modern", profile: EndToEnd.profile())
            let folder = EndToEnd.temporaryFolder("sidecar-env")
            let recorded = folder.appendingPathComponent("environment.txt")
            let standIn = PackageRoot.at("Tests/LaunchEnginesTests/Fixtures/pymobiledevice3/pymobiledevice3").path
            let child = try LaunchbenchCLI.start(
                [
                    "run", app.url.path, "--iterations", "1", "--warm", "0", "--output",
                    folder.appendingPathComponent("results").path,
                ],
                environment: [
                    "USBMUXD_SOCKET_ADDRESS": "UNIX:\(socket)", "LAUNCHBENCH_PYMOBILEDEVICE3": standIn,
                    "STANDIN_PMD3_MODE": "exit", "STANDIN_PMD3_ENV": recorded.path, "NO_COLOR": "1",
                ])
            _ = try await child.waitForExit(timeout: .seconds(120))
            let lines = try String(contentsOf: recorded, encoding: .utf8).split(separator: "\n").map(String.init)
            #expect(lines.contains("USBMUXD_SOCKET_ADDRESS=\(socket)"), "\(lines) \(child.standardError)")
            #expect(lines.contains("PYMOBILEDEVICE3_USBMUX=\(socket)"), "\(lines)")
        }
    }
}
