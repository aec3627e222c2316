import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

/// The CI gate options of `launchbench run` (--baseline, --allowed-dylibs, --write-allowed-dylibs,
/// --target-precision): the built binary as a subprocess against a private emulated lab.
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(5))) struct RunGateCommandTests {
    private func run(_ arguments: [String], lab: EmulatedLab) async throws -> LaunchbenchCLI.Outcome {
        try await LaunchbenchCLI.run(
            ["run"] + arguments + ["--timeout", "20", "--grace", "3", "--warm", "0"],
            environment: ["USBMUXD_SOCKET_ADDRESS": lab.usbmuxdSocketAddress, "NO_COLOR": "1"], timeout: .seconds(180))
    }

    /// The default profile with every figure scaled.
    private func profile(scaledBy factor: Double) -> AppProfile {
        var profile = EndToEnd.profile()
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
            let folder = EndToEnd.temporaryFolder("gate")
            let app = try EndToEnd.makeApp("Gate", profile: EndToEnd.profile())
            let baseline = folder.appendingPathComponent("baseline")
            let first = try await run([app.url.path, "--iterations", "8", "--output", baseline.path], lab: lab)
            #expect(first.status == 0, "\(first.stderr)")

            let same = try await run(
                [
                    app.url.path, "--iterations", "8", "--output", folder.appendingPathComponent("same").path,
                    "--baseline", baseline.path,
                ],
                lab: lab)
            #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
            #expect(same.stdout.contains("Gate: PASSED — 2 unchanged"))

            let slow = try EndToEnd.makeApp("Gate", profile: profile(scaledBy: 1.3), bundleID: app.bundleID)
            let junit = folder.appendingPathComponent("gate.xml")
            let slower = try await run(
                [
                    slow.url.path, "--iterations", "8", "--output", folder.appendingPathComponent("slow").path,
                    "--baseline", baseline.path,
                    "--junit", junit.path,
                ],
                lab: lab)
            #expect(slower.status == 2, "\(slower.stdout)\(slower.stderr)")
            #expect(slower.stdout.contains("Gate: FAILED — 2 regressions"))
            #expect(
                try String(contentsOf: junit, encoding: .utf8).components(separatedBy: "type=\"regression\"").count == 3
            )
            // report.html, rewritten once the gate judged, shows the same verdicts; the baseline's own has none.
            let html = try String(
                contentsOf: folder.appendingPathComponent("slow").appendingPathComponent("report.html"), encoding: .utf8
            )
            #expect(html.contains("<h2>Against the baseline</h2>"))
            #expect(html.contains("Gate: FAILED — 2 regressions"))
            #expect(html.components(separatedBy: "<td class=\"bad\">REGRESSION</td>").count == 3)
            let baselineHTML = try String(contentsOf: baseline.appendingPathComponent("report.html"), encoding: .utf8)
            #expect(!baselineHTML.contains("Against the baseline"))

            // No baseline: exit 5 before anything is launched.
            let missing = folder.appendingPathComponent("no-such-baseline")
            let noBaseline = try await run(
                [app.url.path, "--output", folder.appendingPathComponent("never").path, "--baseline", missing.path],
                lab: lab)
            #expect(noBaseline.status == 5)
            #expect(noBaseline.stderr.contains("Baseline not found at \(missing.path)"))
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("never").path))
        }
    }

    @Test func dylibGuardRecordsChecksAndNamesAnAddedFramework() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let folder = EndToEnd.temporaryFolder("dylibs")
            let list = folder.appendingPathComponent("allowed-dylibs.txt")
            let app = try EndToEnd.makeApp("Guarded", profile: EndToEnd.profile(), frameworks: ["SampleKit.framework"])
            let record = try await run(
                [
                    app.url.path, "--iterations", "2", "--output", folder.appendingPathComponent("record").path,
                    "--write-allowed-dylibs", list.path,
                ], lab: lab)
            #expect(record.status == 0, "\(record.stderr)")
            let text = try String(contentsOf: list, encoding: .utf8)
            #expect(text.split(separator: "\n").filter { !$0.hasPrefix("#") } == ["SampleKit.framework"])
            // DYLD_PRINT_LIBRARIES was on: the launches saw the framework load.
            let recorded = try EndToEnd.samplesOnDisk(folder.appendingPathComponent("record"))
            #expect(recorded.allSatisfy { $0.bundleImages.contains("Frameworks/SampleKit.framework/SampleKit") })

            let passing = try await run(
                [
                    app.url.path, "--iterations", "2", "--output", folder.appendingPathComponent("ok").path,
                    "--allowed-dylibs", list.path,
                ],
                lab: lab)
            #expect(passing.status == 0, "\(passing.stdout)\(passing.stderr)")
            #expect(
                passing.stdout.contains(
                    "Dylib guard: every image loaded from the app bundle is in the allowed list."))

            // A dylib added to the app's Frameworks: the gate fails before launching and names it.
            let grown = try EndToEnd.makeApp(
                "Guarded", profile: EndToEnd.profile(), frameworks: ["SampleKit.framework", "Tracker.framework"])
            let failing = try await run(
                [
                    grown.url.path, "--iterations", "2", "--output", folder.appendingPathComponent("grown").path,
                    "--allowed-dylibs", list.path,
                ],
                lab: lab)
            #expect(failing.status == 2, "\(failing.stdout)\(failing.stderr)")
            #expect(
                failing.stdout.contains(
                    "Frameworks/Tracker.framework is embedded in the app's Frameworks/ folder but not in the allowed-dylibs list."
                ))

            // An image loaded at launch from elsewhere in the bundle: named with device and launch.
            var hidden = EndToEnd.profile()
            hidden.bundleImages = ["Frameworks/SampleKit.framework/SampleKit", "PlugIns/libHidden.dylib"]
            let sneaky = try EndToEnd.makeApp("Guarded", profile: hidden, frameworks: ["SampleKit.framework"])
            let loaded = try await run(
                [
                    sneaky.url.path, "--iterations", "2", "--output", folder.appendingPathComponent("sneaky").path,
                    "--allowed-dylibs", list.path,
                ],
                lab: lab)
            #expect(loaded.status == 2, "\(loaded.stdout)\(loaded.stderr)")
            #expect(
                loaded.stdout.contains(
                    "PlugIns/libHidden.dylib loaded at launch on \(lab.devices[0].name) (\(lab.devices[0].udid)), cold launch, iteration 1"
                ))
        }
    }

    @Test func referenceAppIsInterleavedAndTheGapReported() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let folder = EndToEnd.temporaryFolder("reference")
            let app = try EndToEnd.makeApp("Main", profile: EndToEnd.profile())
            let empty = try EndToEnd.makeApp("Empty", profile: profile(scaledBy: 0.5), frameworks: [])
            let output = folder.appendingPathComponent("results")
            let child = try await run(
                [app.url.path, "--iterations", "6", "--output", output.path, "--reference-app", empty.url.path],
                lab: lab)
            #expect(child.status == 0, "\(child.stderr)")
            let main = try EndToEnd.samplesOnDisk(output)
            let reference = try EndToEnd.samplesOnDisk(output.appendingPathComponent("reference"))
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
                child.stdout.split(separator: "\n").first { $0.contains("above the reference app") })
            let gap = try #require(Double(line.trimmingCharacters(in: .whitespaces).split(separator: " ")[0]))
            #expect(gap > 100 && gap < 180, "\(line)")
            // compare reads the reference launches of the current folder too.
            let compare = try LaunchbenchCLI.start(
                ["compare", output.path, output.path],
                environment: ["NO_COLOR": "1"])
            #expect(try await compare.waitForExit(timeout: .seconds(60)) == 0)
            #expect(compare.standardOutput.contains("above the reference app"))
        }
    }

    @Test func targetPrecisionStopsEachDeviceAndSaysWhen() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let folder = EndToEnd.temporaryFolder("adaptive")
            let app = try EndToEnd.makeApp("Adaptive", profile: EndToEnd.profile())
            let output = folder.appendingPathComponent("results")
            let child = try await run(
                [app.url.path, "--output", output.path, "--target-precision", "3", "--max-iterations", "25"], lab: lab)
            #expect(child.status == 0, "\(child.stderr)")
            let cold = try EndToEnd.samplesOnDisk(output).filter { $0.kind == .cold }
            #expect(cold.count >= 6 && cold.count <= 25)
            #expect(child.stdout.contains("\(cold.count) iterations"))
            let manifest = try RunManifest.read(from: output.appendingPathComponent("run.json"))
            #expect(manifest.options?.targetPrecisionPercent == 3)
            #expect(manifest.options?.maxIterations == 25)
            // The decision the gate reported is the one the run recorded.
            let stop = try #require(manifest.deviceOutcomes?.first?.stop)
            #expect(stop.rule == .targetPrecision && stop.iterations == cold.count && stop.targetPercent == 3)
        }
    }

    @Test func untilVerdictStopsEachDeviceOnceTheComparisonIsSettled() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let folder = EndToEnd.temporaryFolder("until-verdict")
            let app = try EndToEnd.makeApp("Verdict", profile: EndToEnd.profile())
            let baseline = folder.appendingPathComponent("baseline")
            let first = try await run([app.url.path, "--iterations", "12", "--output", baseline.path], lab: lab)
            #expect(first.status == 0, "\(first.stderr)")

            // The same app: settled as unchanged within ±5 % before the cap.
            let same = folder.appendingPathComponent("same")
            let aa = try await run(
                [app.url.path, "--output", same.path, "--baseline", baseline.path, "--until-verdict"], lab: lab)
            #expect(aa.status == 0, "\(aa.stdout)\(aa.stderr)")
            let sameLaunches = try EndToEnd.samplesOnDisk(same).filter { $0.kind == .cold }.count
            #expect(sameLaunches >= 5 && sameLaunches < 30, "\(sameLaunches)")
            #expect(
                aa.stdout.contains("Unchanged within ±5 % after \(sameLaunches) launches"),
                "\(aa.stdout)")
            let manifest = try RunManifest.read(from: same.appendingPathComponent("run.json"))
            #expect(manifest.options?.maxIterations == 30)
            #expect(
                manifest.deviceOutcomes?.first?.notes.contains {
                    $0.contains("verdict settled after \(sameLaunches) iterations")
                } == true)

            // 30 % slower: a regression at one of the first looks.
            let slow = try EndToEnd.makeApp("Verdict", profile: profile(scaledBy: 1.3), bundleID: app.bundleID)
            let slower = folder.appendingPathComponent("slower")
            let regressed = try await run(
                [slow.url.path, "--output", slower.path, "--baseline", baseline.path, "--until-verdict"], lab: lab)
            #expect(regressed.status == 2, "\(regressed.stdout)\(regressed.stderr)")
            let slowLaunches = try EndToEnd.samplesOnDisk(slower).filter { $0.kind == .cold }.count
            #expect(slowLaunches <= 8, "\(slowLaunches)")
            #expect(regressed.stdout.contains("Slower after \(slowLaunches) launches"))

        }
    }

    /// The same UDID on another iOS version (an emulated lab reuses UDIDs; a phone gets updated): the gate gives
    /// no verdict unless asked to compare anyway, through the real libimobiledevice on both runs.
    @Test func aBaselineFromAnotherIOSVersionIsNotComparableUnlessComparedAnyway() async throws {
        let folder = EndToEnd.temporaryFolder("not-comparable")
        let app = try EndToEnd.makeApp("Updated", profile: EndToEnd.profile())
        let baseline = folder.appendingPathComponent("ios14")
        let current = folder.appendingPathComponent("ios15")
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "14.8")) { lab in
            let first = try await run([app.url.path, "--iterations", "6", "--output", baseline.path], lab: lab)
            #expect(first.status == 0, "\(first.stderr)")
        }
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "15.7")) { lab in
            let gated = try await run(
                [app.url.path, "--iterations", "6", "--output", current.path, "--baseline", baseline.path], lab: lab)
            #expect(gated.status == 3, "\(gated.stdout)\(gated.stderr)")
            #expect(gated.stdout.contains("Not comparable: iOS 14.8 → 15.7"), "\(gated.stdout)")
        }
        let compare = try LaunchbenchCLI.start(
            ["compare", baseline.path, current.path, "--compare-anyway"], environment: ["NO_COLOR": "1"])
        let status = try await compare.waitForExit(timeout: .seconds(60))
        #expect(status == 0 || status == 2, "\(compare.standardOutput)\(compare.standardError)")
        #expect(compare.standardOutput.contains("Compared anyway (--compare-anyway) across iOS 14.8 → 15.7"))
    }

    /// Capped at 5 launches, a 30 % slower build judged against a 30 % threshold: the shift (~28 %) is not beyond
    /// the threshold and its interval still reaches past it, so nothing settles: insufficient data, exit 3. A fresh
    /// lab and a fixed bundle id make the emulator's noise the same on every run of the test.
    @Test func untilVerdictAtTheCapIsInsufficientData() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let folder = EndToEnd.temporaryFolder("until-verdict-cap")
            let app = try EndToEnd.makeApp("Capped", profile: EndToEnd.profile(), bundleID: "com.example.e2e.capped")
            let slow = try EndToEnd.makeApp("Capped", profile: profile(scaledBy: 1.3), bundleID: app.bundleID)
            let baseline = folder.appendingPathComponent("baseline")
            let first = try await run([app.url.path, "--iterations", "12", "--output", baseline.path], lab: lab)
            #expect(first.status == 0, "\(first.stderr)")
            let cap = try await run(
                [
                    slow.url.path, "--output", folder.appendingPathComponent("capped").path, "--baseline",
                    baseline.path, "--until-verdict", "--max-iterations", "5", "--threshold", "30",
                ], lab: lab)
            #expect(cap.status == 3, "\(cap.stdout)\(cap.stderr)")
            #expect(cap.stdout.contains("Not settled after 5 launches"), "\(cap.stdout)")
        }
    }
}
