import Foundation
import LaunchBench
import TestSupport
import Testing

/// Each device's end must land on that device. Swift 6.3.1 `-O` handed `BenchmarkRunner`'s child tasks'
/// index back as 0 or garbage when they returned `(Int, Result<_, any Error>)` from a `do`/`catch`
/// (release builds trapped in `outcomes[index]`; debug builds were right). `Scripts/test` runs this
/// suite in the release configuration too, so the shape cannot come back unnoticed.
@Suite(.timeLimit(.minutes(5))) struct DeviceOutcomeAttributionTests {
    @Test func everyDeviceOutcomeAndSampleLandsOnItsOwnDevice() async throws {
        // Device k is unplugged at its launch k + 1, so the devices end one after another, each with a
        // different number of samples; the last one is measured in full.
        let devices = (1...6).map { RunnerFixtures.device($0, ios: "12.5.7") }
        let driver = FakeDeviceDriver(devices: devices) { context in
            let index = devices.firstIndex { $0.udid == context.udid } ?? 0
            if index < devices.count - 1 && context.number == index + 1 {
                return FakeDeviceDriver.AppScript(
                    then: .fail(FakeDriverError(kind: .deviceLost, text: "unplugged (fake)")))
            }
            return RunnerFixtures.statisticsApp(context)
        }
        let folder = RunnerFixtures.temporaryFolder()
        let result = try await BenchmarkRunner(driver: driver).run(
            RunnerFixtures.plan(iterations: 3, warm: 1), into: folder)
        let samples = try result.samples

        let outcomes = try #require(result.manifest.deviceOutcomes)
        #expect(outcomes.map(\.udid) == devices.map(\.udid))
        #expect(outcomes.map(\.outcome) == [.lost, .lost, .lost, .lost, .lost, .measured])
        for (index, device) in devices.enumerated() {
            let samples = samples.filter { $0.deviceUDID == device.udid }
            let expected = index == devices.count - 1 ? 6 : index + 1
            #expect(samples.count == expected, "device \(index + 1)")
            #expect(samples.dropLast(index == devices.count - 1 ? 0 : 1).allSatisfy { $0.status == .ok })
        }
        let onDisk = try RunnerFixtures.readManifest(in: result.folder)
        #expect(onDisk.deviceOutcomes == outcomes)
        #expect(try RunnerFixtures.readSamples(in: result.folder).count == 1 + 2 + 3 + 4 + 5 + 6)
    }
}
