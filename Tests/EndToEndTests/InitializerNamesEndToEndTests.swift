import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice
import TestSupport
import Testing

extension RealPymobiledevice3Tests {
    /// Initializers by function end to end: the emulated phones install the sample app's real binaries and
    /// trace their initializers' addresses; the run names them from the same binaries, per launch and in
    /// `initializers.csv`.
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(5)), installed) struct InitializerNamesEndToEndTests {
        @Test func theDemoPhonesNameTheSampleAppsInitializers() async throws {
            let specs = [("iPhone14,5", "16.7"), ("iPhone15,4", "17.5"), ("iPhone17,3", "18.6")]
            try await EndToEnd.withDevices(specs) { devices in
                let copy = EndToEnd.temporaryFolder("initializers").appendingPathComponent("Sample.app")
                try FileManager.default.copyItem(at: PackageRoot.at("Fixtures/SampleApp/Sample.app"), to: copy)
                var plan = EndToEnd.plan(try AppBundle(contentsOf: copy), devices: devices, iterations: 1)
                plan.premain = .kdebug
                let result = try await Pymobiledevice3EndToEnd.run(
                    plan, driver: try await Pymobiledevice3EndToEnd.driver(selection: .auto), readsKdebug: true)
                let samples = try result.samples
                #expect(samples.count == 6)
                for sample in samples {
                    let label = "\(sample.osVersion) \(sample.kind): \(sample.warnings)"
                    #expect(sample.status == .ok, "\(label) \(sample.message ?? "")")
                    let networking = sample.initializers?.first { $0.image == "SampleNetworking" }
                    #expect(
                        networking?.functions?.map(\.function) == [
                            "networking_warm_cache", "networking_start_reachability",
                        ], "\(label)")
                    let executable = sample.initializers?.first { $0.image == "Sample" }?.functions?.map(\.function)
                    #expect(executable?.contains("sample_configure_logging") == true, "\(label)")
                }
                try ResultExports.writeAll(resultsFolder: result.folder)
                let csv = try String(
                    contentsOf: result.folder.appendingPathComponent(ResultsFolder.FileName.initializersCSV),
                    encoding: .utf8)
                for device in devices {
                    #expect(csv.contains("\(device.udid),cold,SampleNetworking,networking_start_reachability,1,"))
                }
            }
        }
    }
}
