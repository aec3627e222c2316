import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

extension RealPymobiledevice3Tests {
    /// What the built `launchbench` leaves in, and takes from, a shared temporary folder on a run whose kdebug
    /// helper runs (iOS 14, `--premain kdebug`): nothing left after the run, and a folder planted by another
    /// user is refused rather than run from.
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(5)), installed) struct PrivateTemporaryFolderTests {
        private func run(_ lab: EmulatedLab, temporary: URL, output: URL, iterations: Int = 1) throws -> ChildProcess {
            let app = try EndToEnd.makeApp("Private", profile: EndToEnd.profile())
            return try LaunchbenchCLI.start(
                [
                    "run", app.url.path, "--iterations", String(iterations), "--warm", "0", "--premain", "kdebug",
                    "--output", output.path,
                ],
                environment: [
                    "USBMUXD_SOCKET_ADDRESS": lab.usbmuxdSocketAddress, "NO_COLOR": "1", "TMPDIR": temporary.path,
                    "XDG_RUNTIME_DIR": "", "LAUNCHBENCH_LOCK_DIR": "",
                ])
        }

        @Test func aRunLeavesOnlyItsLockFolderBehind() async throws {
            try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "14.8")) { lab in
                let temporary = EndToEnd.temporaryFolder("tmpdir")
                let output = EndToEnd.temporaryFolder("private-run").appendingPathComponent("results")
                let child = try run(lab, temporary: temporary, output: output)
                #expect(try await child.waitForExit(timeout: .seconds(120)) == 0, "\(child.standardError)")
                let manifest = try RunManifest.read(from: output.appendingPathComponent("run.json"))
                #expect(manifest.outcome(of: lab.devices[0].udid)?.premainSource == .kdebug)  // the helper ran
                let user = "launchbench-\(geteuid())"
                #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == [user])
                let left = try FileManager.default.contentsOfDirectory(
                    atPath: temporary.appendingPathComponent(user).path)
                #expect(left == ["locks"])
            }
        }

        /// Ctrl-C removes the run's folder; `kill -9` cannot, so the next run removes what it left.
        @Test func anInterruptedRunLeavesNothingAndAKilledOnesFolderGoesWithTheNextRun() async throws {
            try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "14.8")) { lab in
                let temporary = EndToEnd.temporaryFolder("tmpdir-ends")
                let user = temporary.appendingPathComponent("launchbench-\(geteuid())")
                func left() -> [String] {
                    ((try? FileManager.default.contentsOfDirectory(atPath: user.path)) ?? []).sorted()
                }
                for signal in [SIGINT, SIGKILL] {
                    let output = EndToEnd.temporaryFolder("ends").appendingPathComponent("results")
                    let child = try run(lab, temporary: temporary, output: output, iterations: 500)
                    let samples = output.appendingPathComponent("samples.jsonl")
                    // A launch's line on stderr comes after its sample is written to samples.jsonl.
                    try await child.waitForOutput("a first launch", timeout: .seconds(120)) {
                        $0.standardError.contains("/500 cold")
                    }
                    try #require(!((try? Data(contentsOf: samples))?.isEmpty ?? true), "no sample before \(signal)")
                    #expect(left().contains("run-\(child.processIdentifier)"), "\(left())")
                    child.send(signal: signal)
                    let status = try await child.waitForExit(timeout: .seconds(60))
                    if signal == SIGINT {
                        #expect(status == 130, "\(child.standardError)")
                        #expect(left() == ["locks"])
                    } else {
                        #expect(left() == ["locks", "run-\(child.processIdentifier)"])
                    }
                }
                let output = EndToEnd.temporaryFolder("ends").appendingPathComponent("results")
                let next = try run(lab, temporary: temporary, output: output)
                #expect(try await next.waitForExit(timeout: .seconds(120)) == 0, "\(next.standardError)")
                #expect(left() == ["locks"])
            }
        }

        @Test func aFolderPlantedByAnotherUserIsRefusedAndNothingInItRuns() async throws {
            try #require(geteuid() == 0, "needs root to give a folder to nobody")
            try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "14.8")) { lab in
                let temporary = EndToEnd.temporaryFolder("tmpdir-planted")
                let planted = temporary.appendingPathComponent("launchbench-\(geteuid())")
                let marker = temporary.appendingPathComponent("planted-code-ran")
                try FileManager.default.createDirectory(at: planted, withIntermediateDirectories: false)
                for module in ["argparse.py", "sitecustomize.py"] {
                    try Data("open('\(marker.path)', 'w').write('ran')\n".utf8).write(
                        to: planted.appendingPathComponent(module))
                }
                chmod(planted.path, 0o777)
                #expect(chown(planted.path, 65534, 65534) == 0)

                let output = EndToEnd.temporaryFolder("planted-run").appendingPathComponent("results")
                let child = try run(lab, temporary: temporary, output: output)
                #expect(try await child.waitForExit(timeout: .seconds(120)) == 1, "\(child.standardError)")
                #expect(child.standardError.contains("Will not use \(planted.path)"), "\(child.standardError)")
                #expect(child.standardError.contains("belongs to user id 65534"), "\(child.standardError)")
                #expect(!FileManager.default.fileExists(atPath: marker.path))
            }
        }
    }
}
