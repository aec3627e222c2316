import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice
import TestSupport
import Testing

extension RealPymobiledevice3Tests {
    /// report.html against a baseline, end to end: the sample app's fixture build as the baseline, then its
    /// build 36 (whose `networking_start_reachability` initializer takes 18 ms more on the emulated phone), run
    /// against it; the run's report.html names the function and its change, as the gate's report does.
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(5)), installed) struct BaselineReportEndToEndTests {
        @Test func theSlowerInitializerIsNamedInReportHTML() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                let root = EndToEnd.temporaryFolder("baseline-report")
                defer { try? FileManager.default.removeItem(at: root) }
                let driver = try await Pymobiledevice3EndToEnd.driver(selection: .auto)
                func measure(build: String) async throws -> RunResult {
                    let folder = root.appendingPathComponent("build-\(build)")
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    let app = try AppBundle(contentsOf: try SampleApp.write(into: folder, build: build))
                    // 4 launches a side: the fewest at which the rank test can reject at 0.05 (3 against 3 never
                    // can, and the gate then judges nothing).
                    var plan = EndToEnd.plan(app, devices: devices, iterations: 4)
                    plan.premain = .kdebug
                    return try await Pymobiledevice3EndToEnd.run(plan, driver: driver, readsKdebug: true)
                }
                let baseline = try await measure(build: SampleApp.fixtureBuild)
                try ResultExports.writeAll(resultsFolder: baseline.folder)
                let current = try await measure(build: "36")

                let gate = GateCheck(
                    baseline: try GateInput.load(path: baseline.folder.path, role: .baseline),
                    settings: GateSettings(minimumLaunches: 4))
                let conclusion = RunConclusion.conclude(current, gate: gate)
                let report = try #require(conclusion.report)
                let functions = (report.comparison?.entries ?? []).compactMap(\.explanation).flatMap(\.functions)
                let reachability = try #require(
                    functions.first { $0.function == "networking_start_reachability" },
                    "the gate names the function: \(functions.map(\.text))")
                #expect(reachability.deltaMs > 10)

                let html = try String(
                    contentsOf: current.folder.appendingPathComponent("report.html"),
                    encoding: .utf8)
                #expect(html.contains("<h2>Against the baseline</h2>"))
                // `networking_start_reachability +18.2 ms`: the gate's words, the name in <code>.
                let change = reachability.text.dropFirst(reachability.function.count)
                #expect(html.contains("<code>networking_start_reachability</code>\(change) in SampleNetworking"))
            }
        }

        /// The same builds in one A/B run (`run NEW --against BASE`): its "NEW against BASE" section names the
        /// slower initializer function with the same words.
        @Test func anABRunNamesTheSlowerInitializer() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                let root = EndToEnd.temporaryFolder("ab-report")
                defer { try? FileManager.default.removeItem(at: root) }
                func app(build: String) throws -> AppBundle {
                    let folder = root.appendingPathComponent("build-\(build)")
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    return try AppBundle(contentsOf: try SampleApp.write(into: folder, build: build))
                }
                var plan = EndToEnd.plan(try app(build: "36"), devices: devices, iterations: 3)
                plan.premain = .kdebug
                plan.against = try app(build: SampleApp.fixtureBuild)
                plan.build = RunManifest.newBuild
                let result = try await Pymobiledevice3EndToEnd.run(
                    plan, driver: try await Pymobiledevice3EndToEnd.driver(selection: .auto), readsKdebug: true)
                _ = RunConclusion.conclude(result, gate: nil)
                let html = try String(
                    contentsOf: result.folder.appendingPathComponent("report.html"), encoding: .utf8)
                #expect(html.contains("<h2>NEW against BASE</h2>"))
                #expect(html.contains("What changed, NEW against BASE"))
                #expect(html.contains("<code>networking_start_reachability</code> +"), "\(html)")
            }
        }
    }
}
