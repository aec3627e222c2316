import Foundation
import LaunchBench

/// Devices, plans and folders for runner tests.
enum RunnerFixtures {
    static func device(_ index: Int, ios: String, model: String = "iPhone6,1") -> DeviceInfo {
        DeviceInfo(
            udid: String(format: "00008030-00000000000000%02d", index), name: "Test iPhone \(index)",
            productType: model,
            osVersion: ios, buildVersion: "TEST")
    }

    static let app = AppBundle(
        url: URL(fileURLWithPath: "/tmp/Sample.app"), packaging: .appFolder, bundleID: "com.example.sample",
        shortVersion: "1.0", build: "7", executable: "Sample", bundleName: "Sample.app", frameworks: [])

    static func plan(
        iterations: Int = 3, warm: Int = 1, cold: RunPlan.ColdMode = .reinstall, env: [EnvironmentVariable] = [],
        timeout: Duration = .seconds(20), grace: Duration = .milliseconds(20), devices: [String] = []
    ) -> RunPlan {
        RunPlan(
            app: app, deviceUDIDs: devices, iterations: iterations, coldMode: cold, warmLaunches: warm,
            environment: env, timeout: timeout, grace: grace, settle: .zero)
    }

    /// A fresh temp folder for one test's results.
    static func temporaryFolder() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "launchbench-runner-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The app prints a statistics block whose values depend on cold/warm and the launch number.
    static let statisticsApp: @Sendable (FakeDeviceDriver.LaunchContext) -> FakeDeviceDriver.AppScript = { context in
        let total = Double(context.isCold ? 400 + context.number : 150 + context.number)
        return .printing(
            "app says hi\n"
                + FakeOutput.statistics(
                    total: total, dylib: total / 2, rebase: total / 8, objc: total / 8, initializer: total / 4))
    }

    /// The expected total pre-main for `statisticsApp`.
    static func expectedTotal(number: Int, cold: Bool) -> Double { Double(cold ? 400 + number : 150 + number) }

    /// Reads `samples.jsonl` back.
    static func readSamples(in folder: URL) throws -> [Sample] {
        let text = try String(contentsOf: folder.appendingPathComponent("samples.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONCoding.decoder().decode(Sample.self, from: Data($0.utf8)) }
    }

    static func readManifest(in folder: URL) throws -> RunManifest {
        try JSONCoding.decoder().decode(
            RunManifest.self, from: Data(contentsOf: folder.appendingPathComponent("run.json")))
    }
}

/// Collects run events for assertions.
final class RecordingReporter: RunReporter, Sendable {
    private let events = Locked<[RunEvent]>([])

    func report(_ event: RunEvent) {
        events.withLock { $0.append(event) }
    }

    var all: [RunEvent] { events.current }

    var skipped: [(DeviceInfo, String)] {
        all.compactMap {
            if case .deviceSkipped(let device, let text) = $0 { return (device, text) } else { return nil }
        }
    }

    var notes: [(DeviceInfo, String)] {
        all.compactMap { if case .deviceNote(let device, let text) = $0 { return (device, text) } else { return nil } }
    }

    var finishedLaunches: Int {
        all.filter { if case .launchFinished = $0 { return true } else { return false } }.count
    }
}
