import Foundation
import LaunchBench
import Testing

@testable import DeviceEmulator

/// The phone's variation on top of the per-phase noise: off by default, seeded, and with the shape each
/// part promises (an offset per device start, a slow drift, launch noise, rare slow launches).
@Suite struct PhoneVariationTests {
    static let udid = "00008030-001A2D4E0C388001"

    /// Pre-main (ms, the four phases as dyld times them) of launch `number` with `variation` in the profile,
    /// no per-phase noise, at `moment`.
    static func preMain(_ variation: PhoneVariation?, number: Int, moment: DeviceMoment?, seed: UInt64 = 1) -> Double {
        var planner = LaunchPlanTests.planner()
        planner.labSeed = seed
        planner.device = moment
        let app = LaunchPlanTests.app(AppProfile(noise: 0, seed: 5, variation: variation))
        let plan = planner.plan(app: app, environment: [:], kind: .cold, launchNumber: number)
        let phases = plan.phases
        return Double(phases.dylibLoadingUs + phases.rebaseBindingUs + phases.objcSetupUs + phases.initializerUs)
            / 1000
    }

    static func sd(_ values: [Double]) -> Double {
        let mean = values.reduce(0, +) / Double(values.count)
        return (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)).squareRoot()
    }

    @Test func withoutVariationEveryLaunchIsAsBefore() {
        // The per-phase noise alone: the same draws whether or not the planner knows the device's moment.
        let app = LaunchPlanTests.app()
        for number in 1...5 {
            var placed = LaunchPlanTests.planner()
            placed.device = DeviceMoment(start: 2, launch: number * 3, variation: nil)
            let plain = LaunchPlanTests.planner().plan(app: app, environment: [:], kind: .cold, launchNumber: number)
            let moment = placed.plan(app: app, environment: [:], kind: .cold, launchNumber: number)
            #expect(plain.counters == moment.counters)
            #expect(plain.allOutput == moment.allOutput)
        }
    }

    @Test func theRunOffsetHoldsForAStartAndChangesWithTheNext() {
        let offset = PhoneVariation(runOffset: 0.2)
        let first = (1...6).map {
            Self.preMain(offset, number: $0, moment: DeviceMoment(start: 1, launch: $0, variation: nil))
        }
        let second = (1...6).map {
            Self.preMain(offset, number: $0, moment: DeviceMoment(start: 2, launch: $0, variation: nil))
        }
        #expect(Set(first).count == 1)
        #expect(Set(second).count == 1)
        #expect(first[0] != second[0])
        // Seeded: the same start draws the same offset again; another lab seed another.
        #expect(Self.preMain(offset, number: 9, moment: DeviceMoment(start: 1, launch: 9, variation: nil)) == first[0])
        #expect(
            Self.preMain(offset, number: 1, moment: DeviceMoment(start: 1, launch: 1, variation: nil), seed: 2)
                != first[0])
    }

    @Test func offsetsAcrossStartsSpreadAsAsked() {
        let variation = PhoneVariation(runOffset: 0.2)
        let logs = (1...2000).map { variation.deviceLogs(seed: 3, udid: Self.udid, start: $0, count: 1)[0] }
        #expect(abs(Self.sd(logs) - 0.2) < 0.015)
    }

    @Test func driftIsSlowAndHasTheStationarySpread() {
        let variation = PhoneVariation(drift: 0.1, driftLaunches: 20)
        let logs = variation.deviceLogs(seed: 4, udid: Self.udid, start: 1, count: 40_000)
        #expect(abs(Self.sd(logs) - 0.1) < 0.01)
        // Smooth: one launch to the next moves it ~0.5 % (an AR(1) of the same spread would move ~3 %), while
        // 20 launches apart it is far less alike (correlation ≈ 0.73).
        let steps = zip(logs, logs.dropFirst()).map { $1 - $0 }
        #expect(Self.sd(steps) < 0.008)
        let mean = logs.reduce(0, +) / Double(logs.count)
        let lagged = zip(logs, logs.dropFirst(20)).reduce(0) { $0 + ($1.0 - mean) * ($1.1 - mean) }
        let variance = logs.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        #expect((0.6...0.85).contains(lagged / variance))
        // One pass or launch by launch, the emulator's way: the same numbers.
        let one = variation.deviceLogs(seed: 4, udid: Self.udid, start: 1, count: 37).last
        #expect(one == logs[36])
    }

    @Test func launchNoiseAndBackgroundWorkHaveTheirShapes() {
        let variation = PhoneVariation(launch: 0.05, outlierProbability: 0.1, outlierSize: 0.3)
        let quiet = PhoneVariation(launch: 0.05)
        var noisy: [Double] = []
        var plain: [Double] = []
        for n in 0..<4000 {
            let noise = SeededRandom(seed: 6, parts: ["noise", String(n)])
            let background = SeededRandom(seed: 6, parts: ["background", String(n)])
            noisy.append(variation.launchLog(noise: noise, background: background))
            plain.append(quiet.launchLog(noise: noise, background: background))
        }
        #expect(abs(Self.sd(plain) - 0.05) < 0.004)
        let extra = zip(noisy, plain).map { exp($0 - $1) - 1 }.filter { $0 > 0 }
        // About 10 % of launches slowed, by 30 % on average.
        #expect((320...480).contains(extra.count))
        #expect(abs(extra.reduce(0, +) / Double(extra.count) - 0.3) < 0.05)
    }

    @Test func theAppsFieldsWinOverTheEmulatorsOptions() {
        let emulator = PhoneVariation(launch: 0.1, runOffset: 0.2, drift: 0.05)
        let app = PhoneVariation(launch: 0.03, outlierProbability: 0.02)
        #expect(
            app.over(emulator)
                == PhoneVariation(launch: 0.03, runOffset: 0.2, drift: 0.05, outlierProbability: 0.02))
        // The emulator's offset reaches a launch whose profile sets none.
        let moment = DeviceMoment(start: 1, launch: 1, variation: PhoneVariation(runOffset: 0.2))
        #expect(Self.preMain(nil, number: 1, moment: moment) != Self.preMain(nil, number: 1, moment: nil))
    }

    @Test(arguments: [
        (#"{"variation": {"runOffset": -0.1}}"#, "variation.runOffset -0.1 must be from 0 to 2"),
        (#"{"variation": {"outlierProbability": 1.5}}"#, "variation.outlierProbability 1.5 must be from 0 to 1"),
        (#"{"variation": {"driftLaunches": 0}}"#, "variation.driftLaunches 0.0 must be from 1 to 1000000"),
    ])
    func badVariationsAreRejectedNamingTheField(json: String, message: String) {
        #expect(throws: AppProfileError.self) { try AppProfile.decode(Data(json.utf8)) }
        do {
            _ = try AppProfile.decode(Data(json.utf8))
        } catch {
            #expect("\(error.localizedDescription)".contains(message), "\(error)")
        }
    }
}
