import Foundation
import LaunchBench

@testable import LaunchEngines

/// Fixture folders and a recording observer for the engine tests.
enum EngineFixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
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
final class RecordingObserver: LaunchObserver, @unchecked Sendable {  // `lock` guards the vars.
    private let lock = NSLock()
    private var bytes: [UInt8] = []
    private var started: ContinuousClock.Instant?
    let stopAfter: Duration?

    init(stopAfter: Duration? = nil) { self.stopAfter = stopAfter }

    func launched(at instant: ContinuousClock.Instant) { lock.withLock { started = instant } }
    func output(_ chunk: [UInt8]) { lock.withLock { bytes += chunk } }
    func shouldEnd(at instant: ContinuousClock.Instant) -> HarnessStop? {
        lock.withLock {
            guard let stopAfter, let started, instant - started >= stopAfter else { return nil }
            return .timeout
        }
    }
    var text: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }
    var didLaunch: Bool { lock.withLock { started != nil } }
}
