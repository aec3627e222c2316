import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

/// `launchbench run NEW.app --against BASE.app` as a subprocess against a private emulated lab: the A/A run's
/// note, an interrupted run that keeps both builds, and the verdict at a phone's noise (run offset, drift,
/// 5 % per launch), each within 40 launches per build.
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(10))) struct ABRunCommandTests {
    private func run(_ arguments: [String], lab: EmulatedLab) async throws -> LaunchbenchCLI.Outcome {
        try await LaunchbenchCLI.run(
            ["run"] + arguments + ["--timeout", "20", "--grace", "3", "--warm", "0"],
            environment: ["USBMUXD_SOCKET_ADDRESS": lab.usbmuxdSocketAddress, "NO_COLOR": "1"], timeout: .seconds(500))
    }

    /// The default profile, every figure times `factor`, on a phone that wanders as a real one: 5 % per launch,
    /// a run offset (σ 20 %) drawn once per device start and a slow drift (10 %, over about 20 launches), with a
    /// fixed seed and no per-phase noise of its own, so the launch noise is the 5 %.
    private static func phoneProfile(scaledBy factor: Double) -> AppProfile {
        var profile = EndToEnd.profile()
        for (model, timings) in profile.models ?? [:] {
            func scaled(_ t: LaunchTimings?) -> LaunchTimings? {
                guard var t else { return nil }
                t.dylibLoadingMs *= factor
                t.rebaseBindingMs *= factor
                t.objcSetupMs *= factor
                t.initializerMs *= factor
                t.mainMs = t.mainMs.map { $0 * factor }
                t.didFinishLaunchingMs = t.didFinishLaunchingMs.map { $0 * factor }
                t.firstFrameMs = t.firstFrameMs.map { $0 * factor }
                return t
            }
            profile.models?[model] = ModelTimings(cold: scaled(timings.cold), warm: scaled(timings.warm))
        }
        profile.noise = 0
        profile.seed = 11
        profile.variation = PhoneVariation(launch: 0.05, runOffset: 0.2, drift: 0.1, driftLaunches: 20)
        return profile
    }

    @Test func anAARunSettlesUnchangedAndATenPercentSlowerBuildIsCaughtWithin40() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let folder = EndToEnd.temporaryFolder("ab-noise")
            let base = try EndToEnd.makeApp(
                "Paired", profile: Self.phoneProfile(scaledBy: 1), bundleID: "com.example.e2e.paired")
            // A/A: the same build twice, said to be an A/A run.
            let aaFolder = folder.appendingPathComponent("aa")
            let aa = try await run(
                [base.url.path, "--against", base.url.path, "--until-verdict", "--output", aaFolder.path], lab: lab)
            #expect(aa.status == 0, "\(aa.stdout)\(aa.stderr)")
            // Said once, in the gate's notes the CI log shows (it was said on stderr at the start too).
            #expect(aa.stdout.contains("an A/A run, useful to calibrate"), "\(aa.stdout)")
            #expect((aa.stdout + aa.stderr).components(separatedBy: "an A/A run, useful to calibrate").count == 2)
            let aaNew = try EndToEnd.samplesOnDisk(aaFolder)
            let aaBase = try EndToEnd.samplesOnDisk(aaFolder.appendingPathComponent("base"))
            #expect(aaNew.count == aaBase.count && aaNew.count <= 40, "\(aaNew.count) / \(aaBase.count)")
            #expect(aaNew.allSatisfy { $0.build == "new" } && aaBase.allSatisfy { $0.build == "base" })
            // Both builds' exports are written when the run ends; DIR's HTML report has the paired verdict.
            for name in ["summary.json", "report.html"] {
                #expect(FileManager.default.fileExists(atPath: aaFolder.appendingPathComponent("base/\(name)").path))
            }
            let html = try String(contentsOf: aaFolder.appendingPathComponent("report.html"), encoding: .utf8)
            #expect(html.contains("<h2>NEW against BASE</h2>"))
            #expect(html.contains("Unchanged within ±5 % after \(aaNew.count) pairs"))
            #expect(aa.stdout.contains("Unchanged within ±5 % after \(aaNew.count) pairs"), "\(aa.stdout)")
            #expect(aa.stdout.contains("the smallest change these pairs could show is ±"))
            #expect(aa.stdout.contains("Gate: PASSED"))

            // +10 %: the same app, every figure 10 % longer, caught as slower.
            let slow = try EndToEnd.makeApp(
                "Paired", profile: Self.phoneProfile(scaledBy: 1.1), bundleID: "com.example.e2e.paired")
            let slowFolder = folder.appendingPathComponent("slow")
            let slower = try await run(
                [slow.url.path, "--against", base.url.path, "--until-verdict", "--output", slowFolder.path], lab: lab)
            #expect(slower.status == 2, "\(slower.stdout)\(slower.stderr)")
            let pairs = try EndToEnd.samplesOnDisk(slowFolder).count
            #expect(pairs <= 40)
            #expect(slower.stdout.contains("Slower after \(pairs) pairs"), "\(slower.stdout)")
            #expect(slower.stdout.contains("Gate: FAILED — NEW slower than BASE in 1"))

            // trend follows NEW's launches and names what the pairs said.
            let trend = try await LaunchbenchCLI.run(
                ["trend", aaFolder.path, slowFolder.path], environment: ["NO_COLOR": "1"])
            #expect(trend.status == 0, "\(trend.stderr)")
            #expect(
                (trend.stdout + trend.stderr).contains(
                    "\(slowFolder.path) is an A/B run: its points are NEW 2.0 (42); against BASE 2.0 (42)"),
                "\(trend.stdout)\(trend.stderr)")

            // compare DIR gives the run's verdict again, with its exit code.
            let compare = try await LaunchbenchCLI.run(["compare", slowFolder.path], environment: ["NO_COLOR": "1"])
            #expect(compare.status == 2, "\(compare.stdout)\(compare.stderr)")
            #expect(compare.stdout.contains("Slower after \(pairs) pairs"))
        }
    }

    @Test func anInterruptedABRunKeepsBothBuildsAndReportRegenerates() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let folder = EndToEnd.temporaryFolder("ab-interrupted")
            let base = try EndToEnd.makeApp("Halted", profile: EndToEnd.profile(), bundleID: "com.example.e2e.halted")
            let new = try EndToEnd.makeApp(
                "Halted", profile: Self.phoneProfile(scaledBy: 1.05), bundleID: "com.example.e2e.halted")
            let output = folder.appendingPathComponent("results")
            let child = try LaunchbenchCLI.start(
                [
                    "run", new.url.path, "--against", base.url.path, "--iterations", "500", "--warm", "0", "--grace",
                    "3", "--output", output.path,
                ],
                environment: [
                    "USBMUXD_SOCKET_ADDRESS": lab.usbmuxdSocketAddress, "NO_COLOR": "1",
                    "LAUNCHBENCH_LOCK_DIR": folder.appendingPathComponent("locks").path,
                ])
            let baseSamples = output.appendingPathComponent("base/samples.jsonl")
            // N1 B1, B2 N2, N3 B3: with three of BASE's launches written, NEW has made at least two.
            try await waitUntil("3 base launches in \(baseSamples.path)", timeout: .seconds(120)) {
                ((try? String(contentsOf: baseSamples, encoding: .utf8))?.split(separator: "\n").count ?? 0) >= 3
            }
            child.send(signal: SIGINT)
            #expect(try await child.waitForExit(timeout: .seconds(60)) == 130, "\(child.standardError)")
            let manifest = try RunManifest.read(from: output.appendingPathComponent("run.json"))
            #expect(manifest.interrupted == true)
            #expect(manifest.builds?.map(\.role) == ["new", "base"])
            let newLaunches = try EndToEnd.samplesOnDisk(output)
            let baseLaunches = try EndToEnd.samplesOnDisk(output.appendingPathComponent("base"))
            #expect(newLaunches.count >= 2 && baseLaunches.count >= 2)
            #expect(abs(newLaunches.count - baseLaunches.count) <= 1)

            // report regenerates both builds' exports and says where the pairs stand.
            for name in ["samples.csv", "summary.json"] {
                try? FileManager.default.removeItem(at: output.appendingPathComponent(name))
                try? FileManager.default.removeItem(at: output.appendingPathComponent("base/\(name)"))
            }
            let report = try await LaunchbenchCLI.run(["report", output.path], environment: ["NO_COLOR": "1"])
            #expect(report.status == 0, "\(report.stderr)")
            for name in ["samples.csv", "summary.json"] {
                #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(name).path))
                #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("base/\(name)").path))
            }
            #expect(report.stdout.contains("BASE build (\(output.appendingPathComponent("base").path))"))
            #expect(report.stdout.contains("A/B: NEW \(new.url.path)"), "\(report.stdout)")
        }
    }
}
