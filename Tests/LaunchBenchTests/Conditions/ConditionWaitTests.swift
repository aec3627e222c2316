import Foundation
import Testing

@testable import LaunchBench

/// The wait before each iteration, over the in-memory driver and a scripted condition reader: it polls until
/// `--require` holds and reports progress, records or stops when the limit passes, and never lets a condition
/// the reader cannot give pass.
@Suite struct ConditionWaitTests {
    /// Answers each read with the next temperature of `temperatures` (the last one repeats).
    final class CoolingPhone: DeviceConditionReading, Sendable {
        private let readings: Locked<[Double]>
        let reads = Locked(0)
        init(_ temperatures: [Double]) { readings = Locked(temperatures) }
        func conditions(of udid: String) async throws -> DeviceConditions {
            reads.withLock { $0 += 1 }
            let celsius = readings.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] }
            return DeviceConditions(
                batteryPercent: 80, charging: true, temperatureC: celsius, unavailable: ["uptime": "not offered"])
        }
    }

    private func run(
        reader: (any DeviceConditionReading)?, require: String?, wait: Duration = .seconds(30),
        fallback: ConditionPolicy.Fallback = .record, reporter: RecordingReporter = RecordingReporter()
    ) async throws -> RunResult {
        let device = RunnerFixtures.device(1, ios: "12.5.7")
        let driver = FakeDeviceDriver(devices: [device], script: RunnerFixtures.statisticsApp)
        var plan = RunnerFixtures.plan(iterations: 3, warm: 1)
        plan.conditions = ConditionPolicy(
            requirements: try ConditionRequirement.parseList(require ?? ""), waitLimit: wait,
            poll: .milliseconds(1), fallback: fallback)
        return try await BenchmarkRunner(driver: driver, reporter: reporter, conditions: reader).run(
            plan, into: RunnerFixtures.temporaryFolder())
    }

    private func waits(_ reporter: RecordingReporter) -> [String] {
        reporter.all.compactMap {
            if case .preparing(_, _, let step) = $0, step.hasPrefix("waiting for") { return step }
            return nil
        }
    }

    @Test func aHotPhoneIsWaitedForWithProgressThenEveryLaunchCarriesItsIteration() async throws {
        let phone = CoolingPhone([40, 38, 34, 33, 36, 35])
        let reporter = RecordingReporter()
        let result = try await run(reader: phone, require: "temperature<=35", reporter: reporter)
        let samples = try result.samples
        #expect(samples.count == 6)
        // Iteration 1 waited through 40 and 38, took 34; iteration 2 took 33; iteration 3 waited through 36.
        #expect(samples.map { $0.conditions?.temperatureC } == [34, 34, 33, 33, 35, 35])
        #expect(samples.allSatisfy { $0.conditions?.outsideRequirements == nil })
        #expect(
            waits(reporter) == [
                "waiting for temperature<=35 (temperature 40 °C now)",
                "waiting for temperature<=35 (temperature 38 °C now)",
                "waiting for temperature<=35 (temperature 36 °C now)",
            ])
        let notes = reporter.notes.map(\.1)
        #expect(
            notes.contains(
                "Iteration 1: waiting for --require temperature<=35 (temperature 40 °C now), asking every 0.001 s "
                    + "for up to 30 s."))
        #expect(notes.contains { $0.hasPrefix("Iteration 1: --require temperature<=35 held after ") })
        #expect(!notes.contains { $0.hasPrefix("Iteration 2:") })
        let record = try #require(result.manifest.deviceOutcomes?.first?.conditions)
        #expect(record.readings == 3 && record.typical?.temperatureC == 34 && record.iterationsOutside == 0)
        #expect(record.first?.temperatureC == 34 && record.last?.temperatureC == 35)
    }

    @Test func whenTheWaitRunsOutTheLaunchesAreFlaggedOrTheDeviceStops() async throws {
        let reporter = RecordingReporter()
        let recorded = try await run(
            reader: CoolingPhone([41]), require: "temperature<=35,charging", wait: .zero, reporter: reporter)
        let samples = try recorded.samples
        #expect(samples.count == 6)
        #expect(samples.allSatisfy { $0.conditions?.outsideRequirements == ["temperature<=35"] })
        #expect(recorded.manifest.deviceOutcomes?.first?.conditions?.iterationsOutside == 3)
        #expect(reporter.notes.contains { $0.1.hasPrefix("Iteration 1: --require temperature<=35 still did not hold") })

        let stopped = try await run(
            reader: CoolingPhone([41]), require: "temperature<=35", wait: .zero, fallback: .stop)
        let outcome = try #require(stopped.manifest.deviceOutcomes?.first)
        #expect(outcome.outcome == .stopped && outcome.stop?.rule == .conditions)
        #expect(outcome.notes.contains { $0.hasPrefix("--require temperature<=35 still did not hold after 0 s") })
        #expect(try stopped.samples.isEmpty)
    }

    @Test func whatTheReaderCannotGiveIsNeverAPass() async throws {
        let reporter = RecordingReporter()
        let unreported = try await run(reader: CoolingPhone([30]), require: "uptime>=300", reporter: reporter)
        #expect(
            try unreported.samples.allSatisfy { $0.conditions?.outsideRequirements == ["uptime>=300 (not reported)"] })
        #expect(waits(reporter).isEmpty)
        #expect(reporter.notes.filter { $0.1.hasPrefix("--require uptime>=300 cannot be checked") }.count == 1)

        let noReader = try await run(reader: nil, require: "charging")
        #expect(try noReader.samples.allSatisfy { $0.conditions?.outsideRequirements == ["charging (not reported)"] })
        #expect(
            noReader.manifest.deviceOutcomes?.first?.notes.contains {
                $0.contains("this driver reads no device conditions")
            } == true)

        // Without a reader and without --require nothing is recorded: older drivers' runs are unchanged.
        let plain = try await run(reader: nil, require: nil)
        #expect(try plain.samples.allSatisfy { $0.conditions == nil })
        #expect(plain.manifest.deviceOutcomes?.first?.conditions == nil)
    }
}
