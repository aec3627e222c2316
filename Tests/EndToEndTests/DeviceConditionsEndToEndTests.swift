import EmulatorTestSupport
import Foundation
import LaunchBench
import MobileDevice
import TestSupport
import Testing

@testable import DeviceEmulator

/// Device conditions through the real libimobiledevice against the emulated phone: lockdown's battery and disk
/// usage domains and diagnostics_relay's IORegistry read per iteration; a hot phone (the `EmulatedConditions`
/// fault) makes `--require temperature<=35` wait and its launches after the wait are faster; the gate refuses
/// the hot run against a cool baseline; a condition no service gives is never taken as met.
@Suite(.tags(.emulator), .timeLimit(.minutes(5))) struct DeviceConditionsEndToEndTests {
    /// Every event the runner reports, kept.
    final class Events: RunReporter, Sendable {
        private let events = Locked<[RunEvent]>([])
        /// Called at the first wait the runner reports.
        private let onFirstWait: @Sendable () -> Void

        init(onFirstWait: @escaping @Sendable () -> Void = {}) {
            self.onFirstWait = onFirstWait
        }

        func report(_ event: RunEvent) {
            let first = events.withLock { events in
                let waited = !waits(in: events).isEmpty
                events.append(event)
                return !waited && !waits(in: events).isEmpty
            }
            if first { onFirstWait() }
        }

        var waits: [String] { waits(in: events.current) }

        private func waits(in events: [RunEvent]) -> [String] {
            events.compactMap {
                if case .preparing(_, _, let step) = $0, step.hasPrefix("waiting for") { return step }
                return nil
            }
        }
        var notes: [String] {
            events.current.compactMap {
                if case .deviceNote(_, let note) = $0 { return note }
                return nil
            }
        }
    }

    private func run(_ plan: RunPlan, reporter: any RunReporter = SilentRunReporter()) async throws -> RunResult {
        _ = try await SharedTestLab.lab()
        let driver = MobileDeviceDriver()
        return try await BenchmarkRunner(driver: driver, reporter: reporter, conditions: driver)
            .run(plan, into: EndToEnd.temporaryFolder("conditions"))
    }

    private static func median(_ samples: [Sample], _ metric: Metric) -> Double {
        let values = samples.compactMap { $0[metric] }.sorted()
        return values[values.count / 2]
    }

    @Test func aHotPhoneWaitsUntilCoolLaunchesFasterAfterAndTheGateRefusesHotAgainstCool() async throws {
        _ = try await SharedTestLab.lab()
        try await EndToEnd.withDevices([("iPhone12,1", "16.7")]) { devices in
            let phone = devices[0]
            phone.services.conditions.batteryPercent = 87
            phone.services.conditions.charging = true
            let app = try EndToEnd.makeApp("Conditions", profile: EndToEnd.profile())
            let plan = EndToEnd.plan(app, devices: devices, iterations: 6, warm: 0)

            let cool = try await run(plan)
            let coolSamples = try cool.samples
            let reading = try #require(coolSamples.first?.conditions)
            #expect(reading.batteryPercent == 87 && reading.charging == true)
            #expect(reading.temperatureC == 30 && reading.freeStorageBytes == 31e9)
            #expect(reading.uptimeSeconds == nil && reading.unavailable?["uptime"] != nil)
            #expect(reading.outsideRequirements == nil)
            let record = try #require(cool.manifest.outcome(of: phone.udid)?.conditions)
            #expect(record.readings == 6 && record.typical?.temperatureC == 30)
            let report = try ResultsFolder.load(cool.folder).summary.devices.first?.remarks ?? []
            #expect(report.contains { $0.hasPrefix("Conditions: battery 87 %, charging, 30 °C, 31 GB free") })

            // Hot, and no emulated time passes (the cooling does not follow the machine's speed): every launch is
            // slowed by the thermal factor at 45 °C, 1.3.
            phone.services.conditions.heat(to: 45, timeScale: nil)
            let hot = try await run(plan)
            let hotSamples = try hot.samples
            #expect(hotSamples.allSatisfy { $0.conditions?.temperatureC == 45 })
            #expect(Self.median(hotSamples, .firstFrameMs) > 1.2 * Self.median(coolSamples, .firstFrameMs))

            var settings = GateSettings()
            let baseline = try GateInput.load(path: cool.folder.path, role: .baseline)
            let current = try GateInput.load(path: hot.folder.path, role: .current)
            let gate = try GateCheck(baseline: baseline, settings: settings).report(current: current)
            let entry = try #require(gate.comparison?.entries.first)
            #expect(entry.verdict == .notComparable)
            #expect(entry.changes.contains { $0.hasPrefix("temperature 30 °C → 4") })
            settings.compareAnyway = true
            let anyway = try GateCheck(baseline: baseline, settings: settings).report(current: current)
            #expect(anyway.comparison?.entries.first?.verdict == .regression)

            // Hot again: --require waits; five half-lives pass once it does (30.5 °C), then it launches at cool speed.
            phone.services.conditions.heat(to: 45, halfLifeSeconds: 20, timeScale: nil)
            var waiting = plan
            waiting.conditions = ConditionPolicy(
                requirements: try ConditionRequirement.parseList("temperature<=35,charging"), waitLimit: .seconds(60),
                poll: .milliseconds(50))
            let conditions = phone.services.conditions
            let events = Events { conditions.pass(emulatedSeconds: 100) }
            let cooled = try await run(waiting, reporter: events)
            let cooledSamples = try cooled.samples
            #expect(events.waits.first?.hasPrefix("waiting for temperature<=35 (temperature 45") == true)
            #expect(cooledSamples.allSatisfy { ($0.conditions?.temperatureC ?? 99) <= 35 })
            #expect(cooledSamples.allSatisfy { $0.conditions?.outsideRequirements == nil })
            #expect(Self.median(cooledSamples, .firstFrameMs) < Self.median(hotSamples, .firstFrameMs) / 1.2)
            let waited = try #require(cooled.manifest.outcome(of: phone.udid)?.conditions)
            #expect(waited.required == "temperature<=35,charging" && waited.iterationsOutside == 0)
            #expect((waited.waitedSeconds ?? 0) > 0)
        }
    }

    @Test func aConditionNoServiceGivesIsNeverTakenAsMet() async throws {
        try await EndToEnd.withDevices([("iPhone12,1", "16.7")]) { devices in
            let phone = devices[0]
            let app = try EndToEnd.makeApp("Uptime", profile: EndToEnd.profile())
            var plan = EndToEnd.plan(app, devices: devices, iterations: 2, warm: 0)
            plan.conditions = ConditionPolicy(
                requirements: try ConditionRequirement.parseList("uptime>=300"), waitLimit: .seconds(60),
                poll: .milliseconds(50))
            let events = Events()
            let recorded = try await run(plan, reporter: events)
            #expect(try recorded.samples.count == 2)
            #expect(
                try recorded.samples.allSatisfy { $0.conditions?.outsideRequirements == ["uptime>=300 (not reported)"] }
            )
            #expect(events.waits.isEmpty)
            let note = try #require(events.notes.first { $0.hasPrefix("--require uptime>=300 cannot be checked") })
            #expect(recorded.manifest.outcome(of: phone.udid)?.notes.contains(note) == true)

            plan.conditions.fallback = .stop
            let stopped = try await run(plan)
            let outcome = try #require(stopped.manifest.outcome(of: phone.udid))
            #expect(outcome.outcome == .stopped && outcome.stop?.rule == .conditions)
            #expect(try stopped.samples.isEmpty)
        }
    }

    @Test(arguments: ["12.5.7", "17.5"])
    func theConditionsReadOnEveryIOSThroughLockdown(_ osVersion: String) async throws {
        _ = try await SharedTestLab.lab()
        try await EndToEnd.withDevices([("iPhone12,1", osVersion)]) { devices in
            devices[0].services.conditions.batteryPercent = 23
            let conditions = try await MobileDeviceDriver().conditions(of: devices[0].udid)
            #expect(conditions.batteryPercent == 23 && conditions.charging == false)
            #expect(conditions.temperatureC == 30 && conditions.freeStorageBytes == 31e9)
            #expect(Set((conditions.unavailable ?? [:]).keys) == ["uptime", "low-power-mode", "thermal-state"])
        }
    }
}
