import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

/// A lost kdebug session (issue 43, item 2) through the built `launchbench run` and the real libimobiledevice,
/// against emulated iOS 14.8 and 16.7 phones, with no pymobiledevice3 to read kdebug: under `--premain auto`
/// every launch says it has no pre-main (source `none`, a warning, the progress line, run.json and the
/// summary), and an explicit `--premain kdebug` skips the device with the cause and the fix (exit 3). Before,
/// every launch was `ok` with an empty pre-main source, exit 0, and iOS 14 said nothing about kdebug.
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(5))) struct LostTraceSessionTests {
    static let phones = [("iPhone12,1", "14.8"), ("iPhone14,5", "16.7")].enumerated().map {
        EmulatedDeviceSpec.numbered($0.offset + 1, productType: $0.element.0, osVersion: $0.element.1)
    }

    private func run(_ arguments: [String], lab: EmulatedLab) async throws -> (ChildProcess, Int32?) {
        let child = try LaunchbenchCLI.start(
            arguments,
            environment: EndToEnd.withoutPymobiledevice3.merging([
                "USBMUXD_SOCKET_ADDRESS": lab.usbmuxdSocketAddress, "NO_COLOR": "1",
            ]) { $1 })
        return (child, try await child.waitForExit(timeout: .seconds(180)))
    }

    @Test func underAutoEveryLaunchSaysItHasNoPremainAndWhy() async throws {
        try await PrivateLab.with(devices: Self.phones) { lab in
            let app = try EndToEnd.makeApp("LostAuto", profile: EndToEnd.profile())
            let output = EndToEnd.temporaryFolder("lost-auto").appendingPathComponent("results")
            let (child, status) = try await run(
                ["run", app.url.path, "--iterations", "2", "--output", output.path, "--grace", "3"], lab: lab)
            #expect(status == 0, "stderr: \(child.standardError)")
            let samples = try EndToEnd.samplesOnDisk(output)
            #expect(samples.count == 8)
            for sample in samples {
                let label = "\(sample.osVersion) #\(sample.iteration) \(sample.kind)"
                #expect(sample.status == .ok && sample[.totalPremainMs] == nil, "\(label)")
                #expect(sample.premainSource == .notMeasured, "\(label)")
                #expect(
                    sample.warnings.contains {
                        $0.hasPrefix("No pre-main phases (premain_source none): dyld's kdebug events cannot be read")
                            && $0.contains("pymobiledevice3")
                    }, "\(label): \(sample.warnings)")
            }
            let text = try String(contentsOf: output.appendingPathComponent("samples.jsonl"), encoding: .utf8)
            #expect(text.components(separatedBy: "\"premain_source\":\"none\"").count - 1 == 8)
            let manifest = try RunManifest.read(from: output.appendingPathComponent("run.json"))
            for device in lab.devices {
                let outcome = try #require(manifest.outcome(of: device.udid))
                #expect(outcome.premainSource == .notMeasured)
                #expect(
                    outcome.notes.contains { $0.contains("no pre-main phases (premain_source none)") },
                    "\(outcome.notes)")
            }
            // Each launch's progress line and each device's summary say it.
            #expect(
                child.standardError.components(separatedBy: "(no pre-main: kdebug not read)").count - 1 == 8,
                "stderr: \(child.standardError)")
            #expect(
                child.standardOutput.components(separatedBy: "No pre-main phases (premain_source none)").count - 1
                    == 2, "stdout: \(child.standardOutput)")
        }
    }

    @Test func anExplicitKdebugSkipsTheDeviceWithTheCauseAndTheFix() async throws {
        try await PrivateLab.with(devices: Self.phones) { lab in
            let app = try EndToEnd.makeApp("LostExplicit", profile: EndToEnd.profile())
            let output = EndToEnd.temporaryFolder("lost-explicit").appendingPathComponent("results")
            let (child, status) = try await run(
                ["run", app.url.path, "--iterations", "1", "--premain", "kdebug", "--output", output.path], lab: lab)
            #expect(status == 3, "stderr: \(child.standardError)")
            #expect(((try? EndToEnd.samplesOnDisk(output)) ?? []).isEmpty)
            let manifest = try RunManifest.read(from: output.appendingPathComponent("run.json"))
            for device in lab.devices {
                let outcome = try #require(manifest.outcome(of: device.udid))
                #expect(outcome.outcome == .skipped)
                let note = try #require(outcome.notes.first { $0.hasPrefix("Skipping") }, "\(outcome.notes)")
                #expect(note.contains("(--premain kdebug): dyld's kdebug events cannot be read: pymobiledevice3"))
                #expect(note.contains("--premain auto"))
            }
            #expect(
                child.standardError.components(separatedBy: "(--premain kdebug): dyld's kdebug events").count - 1 == 2,
                "stderr: \(child.standardError)")
        }
    }
}
