import DeviceEmulator
import Foundation
import LaunchBench
import TestSupport
import Testing

/// The CI gate options of `launchbench run` (--baseline, --allowed-dylibs, --write-allowed-dylibs,
/// --target-precision): the built binary as a subprocess against a private emulated lab.
@Suite(.timeLimit(.minutes(5))) struct RunGateCommandTests {
    typealias E = EndToEnd

    struct Outcome {
        var exitStatus: Int32?
        var standardOutput: String
        var standardError: String
    }

    private func run(_ arguments: [String], lab: EmulatedLab) async throws -> Outcome {
        let child = try ChildProcess(
            executable: try #require(BuiltProducts.launchbench, "build first: swift build --build-tests"),
            arguments: ["run"] + arguments + ["--timeout", "20", "--grace", "3", "--warm", "0"],
            environment: ["USBMUXD_SOCKET_ADDRESS": lab.usbmuxdSocketAddress, "NO_COLOR": "1"])
        let status = try await child.waitForExit(timeout: .seconds(180))
        return Outcome(exitStatus: status, standardOutput: child.standardOutput, standardError: child.standardError)
    }

    /// The default profile with every figure scaled.
    private func profile(scaledBy factor: Double) -> AppProfile {
        var profile = E.profile()
        for (model, timings) in profile.models ?? [:] {
            var cold = timings.cold!
            cold.dylibLoadingMs *= factor
            cold.rebaseBindingMs *= factor
            cold.objcSetupMs *= factor
            cold.initializerMs *= factor
            cold.mainMs = cold.mainMs.map { $0 * factor }
            cold.didFinishLaunchingMs = cold.didFinishLaunchingMs.map { $0 * factor }
            cold.firstFrameMs = cold.firstFrameMs.map { $0 * factor }
            profile.models?[model] = ModelTimings(cold: cold, warm: timings.warm)
        }
        return profile
    }

    @Test func baselineComparisonPassesTheSameAppAndFailsASlowerOne() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 2, osVersion: "12.5.7")) { lab in
            let folder = E.temporaryFolder("gate")
            let app = try E.makeApp("Gate", profile: E.profile())
            let baseline = folder.appendingPathComponent("baseline")
            let first = try await run([app.url.path, "--iterations", "8", "--output", baseline.path], lab: lab)
            #expect(first.exitStatus == 0, "\(first.standardError)")

            let same = try await run(
                [
                    app.url.path, "--iterations", "8", "--output", folder.appendingPathComponent("same").path,
                    "--baseline", baseline.path,
                ],
                lab: lab)
            #expect(same.exitStatus == 0, "\(same.standardOutput)\(same.standardError)")
            #expect(same.standardOutput.contains("Gate: PASSED — 2 unchanged"))

            let slow = try E.makeApp("Gate", profile: profile(scaledBy: 1.3), bundleID: app.bundleID)
            let junit = folder.appendingPathComponent("gate.xml")
            let slower = try await run(
                [
                    slow.url.path, "--iterations", "8", "--output", folder.appendingPathComponent("slow").path,
                    "--baseline", baseline.path,
                    "--junit", junit.path,
                ],
                lab: lab)
            #expect(slower.exitStatus == 2, "\(slower.standardOutput)\(slower.standardError)")
            #expect(slower.standardOutput.contains("Gate: FAILED — 2 regressions"))
            #expect(
                try String(contentsOf: junit, encoding: .utf8).components(separatedBy: "type=\"regression\"").count == 3
            )

            // No baseline: exit 5 before anything is launched.
            let missing = folder.appendingPathComponent("no-such-baseline")
            let noBaseline = try await run(
                [app.url.path, "--output", folder.appendingPathComponent("never").path, "--baseline", missing.path],
                lab: lab)
            #expect(noBaseline.exitStatus == 5)
            #expect(noBaseline.standardError.contains("Baseline not found at \(missing.path)"))
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("never").path))
        }
    }

    @Test func dylibGuardRecordsChecksAndNamesAnAddedFramework() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let folder = E.temporaryFolder("dylibs")
            let list = folder.appendingPathComponent("allowed-dylibs.txt")
            let app = try E.makeApp("Guarded", profile: E.profile(), frameworks: ["SampleKit.framework"])
            let record = try await run(
                [
                    app.url.path, "--iterations", "2", "--output", folder.appendingPathComponent("record").path,
                    "--write-allowed-dylibs", list.path,
                ], lab: lab)
            #expect(record.exitStatus == 0, "\(record.standardError)")
            let text = try String(contentsOf: list, encoding: .utf8)
            #expect(text.split(separator: "\n").filter { !$0.hasPrefix("#") } == ["SampleKit.framework"])
            // DYLD_PRINT_LIBRARIES was on: the launches saw the framework load.
            let recorded = try E.samplesOnDisk(folder.appendingPathComponent("record"))
            #expect(recorded.allSatisfy { $0.bundleImages.contains("Frameworks/SampleKit.framework/SampleKit") })

            let passing = try await run(
                [
                    app.url.path, "--iterations", "2", "--output", folder.appendingPathComponent("ok").path,
                    "--allowed-dylibs", list.path,
                ],
                lab: lab)
            #expect(passing.exitStatus == 0, "\(passing.standardOutput)\(passing.standardError)")
            #expect(
                passing.standardOutput.contains(
                    "Dylib guard: every image loaded from the app bundle is in the allowed list."))

            // A dylib added to the app's Frameworks: the gate fails before launching and names it.
            let grown = try E.makeApp(
                "Guarded", profile: E.profile(), frameworks: ["SampleKit.framework", "Tracker.framework"])
            let failing = try await run(
                [
                    grown.url.path, "--iterations", "2", "--output", folder.appendingPathComponent("grown").path,
                    "--allowed-dylibs", list.path,
                ],
                lab: lab)
            #expect(failing.exitStatus == 2, "\(failing.standardOutput)\(failing.standardError)")
            #expect(
                failing.standardOutput.contains(
                    "Frameworks/Tracker.framework is embedded in the app's Frameworks/ folder but not in the allowed-dylibs list."
                ))

            // An image loaded at launch from elsewhere in the bundle: named with device and launch.
            var hidden = E.profile()
            hidden.bundleImages = ["Frameworks/SampleKit.framework/SampleKit", "PlugIns/libHidden.dylib"]
            let sneaky = try E.makeApp("Guarded", profile: hidden, frameworks: ["SampleKit.framework"])
            let loaded = try await run(
                [
                    sneaky.url.path, "--iterations", "2", "--output", folder.appendingPathComponent("sneaky").path,
                    "--allowed-dylibs", list.path,
                ],
                lab: lab)
            #expect(loaded.exitStatus == 2, "\(loaded.standardOutput)\(loaded.standardError)")
            #expect(
                loaded.standardOutput.contains(
                    "PlugIns/libHidden.dylib loaded at launch on \(lab.devices[0].name) (\(lab.devices[0].udid)), cold launch, iteration 1"
                ))
        }
    }

    @Test func referenceAppIsInterleavedAndTheGapReported() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let folder = E.temporaryFolder("reference")
            let app = try E.makeApp("Main", profile: E.profile())
            let empty = try E.makeApp("Empty", profile: profile(scaledBy: 0.5), frameworks: [])
            let output = folder.appendingPathComponent("results")
            let child = try await run(
                [app.url.path, "--iterations", "6", "--output", output.path, "--reference-app", empty.url.path],
                lab: lab)
            #expect(child.exitStatus == 0, "\(child.standardError)")
            let main = try E.samplesOnDisk(output)
            let reference = try E.samplesOnDisk(output.appendingPathComponent("reference"))
            #expect(main.count == 6 && main.allSatisfy { $0.appBundleID == app.bundleID })
            #expect(
                reference.count == 6 && reference.allSatisfy { $0.appBundleID == empty.bundleID && $0.status == .ok })
            // Interleaved: each reference launch comes after its iteration's main launch and before the next one.
            for (index, sample) in reference.enumerated() {
                #expect(sample.startedAt > main[index].startedAt)
                if index + 1 < main.count { #expect(sample.startedAt < main[index + 1].startedAt) }
            }
            // Nominal pre-main 280 ms vs 140 ms: the gap is about 140 ms.
            let line = try #require(
                child.standardOutput.split(separator: "\n").first { $0.contains("above the reference app") })
            let gap = try #require(Double(line.trimmingCharacters(in: .whitespaces).split(separator: " ")[0]))
            #expect(gap > 100 && gap < 180, "\(line)")
            // compare reads the reference launches of the current folder too.
            let compare = try ChildProcess(
                executable: try #require(BuiltProducts.launchbench), arguments: ["compare", output.path, output.path],
                environment: ["NO_COLOR": "1"])
            #expect(try await compare.waitForExit(timeout: .seconds(60)) == 0)
            #expect(compare.standardOutput.contains("above the reference app"))
        }
    }

    @Test func targetPrecisionStopsEachDeviceAndSaysWhen() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let folder = E.temporaryFolder("adaptive")
            let app = try E.makeApp("Adaptive", profile: E.profile())
            let output = folder.appendingPathComponent("results")
            let child = try await run(
                [app.url.path, "--output", output.path, "--target-precision", "3", "--max-iterations", "25"], lab: lab)
            #expect(child.exitStatus == 0, "\(child.standardError)")
            let cold = try E.samplesOnDisk(output).filter { $0.kind == .cold }
            #expect(cold.count >= 6 && cold.count <= 25)
            #expect(child.standardOutput.contains("\(cold.count) iterations"))
            let manifest = try RunManifest.read(from: output.appendingPathComponent("run.json"))
            #expect(manifest.options?.targetPrecisionPercent == 3)
            #expect(manifest.options?.maxIterations == 25)
        }
    }

    @Test func untilVerdictStopsEachDeviceOnceTheComparisonIsSettled() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let folder = E.temporaryFolder("until-verdict")
            let app = try E.makeApp("Verdict", profile: E.profile())
            let baseline = folder.appendingPathComponent("baseline")
            let first = try await run([app.url.path, "--iterations", "12", "--output", baseline.path], lab: lab)
            #expect(first.exitStatus == 0, "\(first.standardError)")

            // The same app: settled as unchanged within ±5 % before the cap.
            let same = folder.appendingPathComponent("same")
            let aa = try await run(
                [app.url.path, "--output", same.path, "--baseline", baseline.path, "--until-verdict"], lab: lab)
            #expect(aa.exitStatus == 0, "\(aa.standardOutput)\(aa.standardError)")
            let sameLaunches = try E.samplesOnDisk(same).filter { $0.kind == .cold }.count
            #expect(sameLaunches >= 5 && sameLaunches < 30, "\(sameLaunches)")
            #expect(
                aa.standardOutput.contains("Unchanged within ±5 % after \(sameLaunches) launches"),
                "\(aa.standardOutput)")
            let manifest = try RunManifest.read(from: same.appendingPathComponent("run.json"))
            #expect(manifest.options?.maxIterations == 30)
            #expect(
                manifest.deviceOutcomes?.first?.notes.contains {
                    $0.contains("verdict settled after \(sameLaunches) iterations")
                } == true)

            // 30 % slower: a regression at one of the first looks.
            let slow = try E.makeApp("Verdict", profile: profile(scaledBy: 1.3), bundleID: app.bundleID)
            let slower = folder.appendingPathComponent("slower")
            let regressed = try await run(
                [slow.url.path, "--output", slower.path, "--baseline", baseline.path, "--until-verdict"], lab: lab)
            #expect(regressed.exitStatus == 2, "\(regressed.standardOutput)\(regressed.standardError)")
            let slowLaunches = try E.samplesOnDisk(slower).filter { $0.kind == .cold }.count
            #expect(slowLaunches <= 8, "\(slowLaunches)")
            #expect(regressed.standardOutput.contains("Slower after \(slowLaunches) launches"))

        }
    }

    /// The same UDID on another iOS version (an emulated lab reuses UDIDs; a phone gets updated): the gate gives
    /// no verdict unless asked to compare anyway, through the real libimobiledevice on both runs.
    @Test func aBaselineFromAnotherIOSVersionIsNotComparableUnlessComparedAnyway() async throws {
        let folder = E.temporaryFolder("not-comparable")
        let app = try E.makeApp("Updated", profile: E.profile())
        let baseline = folder.appendingPathComponent("ios14")
        let current = folder.appendingPathComponent("ios15")
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "14.8")) { lab in
            let first = try await run([app.url.path, "--iterations", "6", "--output", baseline.path], lab: lab)
            #expect(first.exitStatus == 0, "\(first.standardError)")
        }
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "15.7")) { lab in
            let gated = try await run(
                [app.url.path, "--iterations", "6", "--output", current.path, "--baseline", baseline.path], lab: lab)
            #expect(gated.exitStatus == 3, "\(gated.standardOutput)\(gated.standardError)")
            #expect(gated.standardOutput.contains("Not comparable: iOS 14.8 → 15.7"), "\(gated.standardOutput)")
        }
        let compare = try ChildProcess(
            executable: try #require(BuiltProducts.launchbench),
            arguments: ["compare", baseline.path, current.path, "--compare-anyway"], environment: ["NO_COLOR": "1"])
        let status = try await compare.waitForExit(timeout: .seconds(60))
        #expect(status == 0 || status == 2, "\(compare.standardOutput)\(compare.standardError)")
        #expect(compare.standardOutput.contains("Compared anyway (--compare-anyway) across iOS 14.8 → 15.7"))
    }

    /// Capped at 5 launches, a 30 % slower build judged against a 30 % threshold: the shift (~28 %) is not beyond
    /// the threshold and its interval still reaches past it, so nothing settles: insufficient data, exit 3. A fresh
    /// lab and a fixed bundle id make the emulator's noise the same on every run of the test.
    @Test func untilVerdictAtTheCapIsInsufficientData() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let folder = E.temporaryFolder("until-verdict-cap")
            let app = try E.makeApp("Capped", profile: E.profile(), bundleID: "com.example.e2e.capped")
            let slow = try E.makeApp("Capped", profile: profile(scaledBy: 1.3), bundleID: app.bundleID)
            let baseline = folder.appendingPathComponent("baseline")
            let first = try await run([app.url.path, "--iterations", "12", "--output", baseline.path], lab: lab)
            #expect(first.exitStatus == 0, "\(first.standardError)")
            let cap = try await run(
                [
                    slow.url.path, "--output", folder.appendingPathComponent("capped").path, "--baseline",
                    baseline.path, "--until-verdict", "--max-iterations", "5", "--threshold", "30",
                ], lab: lab)
            #expect(cap.exitStatus == 3, "\(cap.standardOutput)\(cap.standardError)")
            #expect(cap.standardOutput.contains("Not settled after 5 launches"), "\(cap.standardOutput)")
        }
    }
}
