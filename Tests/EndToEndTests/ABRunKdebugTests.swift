import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice
import TestSupport
import Testing

extension RealPymobiledevice3Tests {
    /// An A/B run where kdebug times pre-main (iOS 16.7, launched through process control): BASE's launches are
    /// measured exactly as NEW's, from the one kdebug session of the device, which stops once, after the last.
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(5)), installed) struct ABRunKdebugTests {
        /// `run NEW --against BASE` with kdebug timing pre-main, on `devices`: the run, then NEW's and BASE's
        /// samples as their folders hold them.
        static func run(
            _ new: AppBundle, against base: AppBundle, devices: [EmulatedDevice], iterations: Int, warm: Int
        ) async throws -> (result: RunResult, new: [Sample], base: [Sample]) {
            var plan = EndToEnd.plan(new, devices: devices, iterations: iterations, warm: warm)
            plan.premain = .kdebug
            plan.against = base
            plan.build = RunManifest.newBuild
            let result = try await Pymobiledevice3EndToEnd.run(
                plan, driver: try await Pymobiledevice3EndToEnd.driver(selection: .auto), readsKdebug: true)
            let newSamples = try ResultsFolder.loadSamples(result.folder).samples
            let baseSamples = try ResultsFolder.loadSamples(
                result.folder.appendingPathComponent(RunManifest.baseFolderName)
            ).samples
            return (result, newSamples, baseSamples)
        }

        @Test func bothBuildsAreTimedByKdebug() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7")]) { devices in
                let base = try EndToEnd.makeApp("Twins", profile: EndToEnd.profile())
                let new = try EndToEnd.makeApp("Twins", profile: EndToEnd.profile(), bundleID: base.bundleID)
                let (result, newSamples, baseSamples) = try await Self.run(
                    new, against: base, devices: devices, iterations: 3, warm: 1)
                #expect(newSamples.count == 6 && baseSamples.count == 6)
                for sample in newSamples + baseSamples {
                    let label = "\(sample.build ?? "?") #\(sample.iteration) \(sample.kind): \(sample.warnings)"
                    #expect(sample.status == .ok, "\(label) \(sample.message ?? "")")
                    #expect(sample.premainSource == .kdebug, "\(label)")
                    #expect(sample[.totalPremainMs] != nil, "\(label)")
                }
                #expect(result.manifest.deviceOutcomes?.first?.outcome == .measured)
            }
        }
    }
}
