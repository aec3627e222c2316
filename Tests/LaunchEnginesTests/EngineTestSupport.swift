import Foundation
import LaunchBench
import TestSupport

@testable import LaunchEngines

/// Fixture folders and a recording observer for the engine tests.
enum EngineFixtures {
    static let root = PackageRoot.at("Tests/LaunchEnginesTests/Fixtures")
    static let devicectl = root.appendingPathComponent("devicectl")
    static let pymobiledevice3 = root.appendingPathComponent("pymobiledevice3/pymobiledevice3")

    static func temporaryFolder() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("launchbench-engines-\(UUID())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static let app = AppBundle(
        url: URL(fileURLWithPath: "/tmp/Sample.app"), packaging: .appFolder, bundleID: "com.example.sample",
        shortVersion: "1.0", build: "7", executable: "Sample", bundleName: "Sample.app", frameworks: [])

    static func device(ios: String, udid: String = "00008120-001A2B3C4D5E6F70") -> DeviceInfo {
        DeviceInfo(udid: udid, name: "Test iPhone", productType: "iPhone15,4", osVersion: ios, buildVersion: "21F90")
    }
}

/// Collects output; ends the launch when `stopAfter` passes (like `--timeout`) or never.
final class RecordingObserver: LaunchObserver, Sendable {
    private struct State {
        var bytes: [UInt8] = []
        var started: ContinuousClock.Instant?
    }

    private let state = Locked(State())
    let stopAfter: Duration?

    init(stopAfter: Duration? = nil) { self.stopAfter = stopAfter }

    func launched(at instant: ContinuousClock.Instant) { state.withLock { $0.started = instant } }
    func output(_ chunk: [UInt8]) { state.withLock { $0.bytes += chunk } }
    func shouldEnd(at instant: ContinuousClock.Instant) -> HarnessStop? {
        guard let stopAfter, let started = state.withLock({ $0.started }), instant - started >= stopAfter else {
            return nil
        }
        return .timeout
    }
    var text: String { state.withLock { String(decoding: $0.bytes, as: UTF8.self) } }
    var didLaunch: Bool { state.withLock { $0.started != nil } }
}
