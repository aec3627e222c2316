import DeviceEmulator
import Foundation
import LaunchBench

/// Copies of the Sample.app fixture with a scripted emulator profile, as `.app` folders or `.ipa`s.
enum TestApps {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let fixture = packageRoot.appendingPathComponent("Fixtures/SampleApp/Sample.app")

    /// A private copy of Sample.app in a fresh temp folder.
    /// - Parameters:
    ///   - profile: replaces `launchbench-emulator.json` (`nil` keeps the fixture's).
    ///   - symlink: adds `Frameworks/Current -> SampleKit.framework` to exercise symlink upload.
    static func app(profile: AppProfile? = nil, symlink: Bool = false) throws -> AppBundle {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lb-md-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let app = folder.appendingPathComponent("Sample.app")
        try FileManager.default.copyItem(at: fixture, to: app)
        if let profile {
            let encoder = JSONEncoder()
            try encoder.encode(profile).write(to: app.appendingPathComponent(AppProfile.fileName))
        }
        if symlink {
            try FileManager.default.createSymbolicLink(
                atPath: app.appendingPathComponent("Frameworks/Current").path,
                withDestinationPath: "SampleKit.framework")
        }
        return try AppBundle(contentsOf: app)
    }

    /// The same app packed as an `.ipa` by Scripts/make-ipa.
    static func ipa(from app: AppBundle) throws -> AppBundle {
        let output = app.url.deletingLastPathComponent().appendingPathComponent("Sample.ipa")
        let process = Process()
        process.executableURL = packageRoot.appendingPathComponent("Scripts/make-ipa")
        process.arguments = [app.url.path, output.path]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        return try AppBundle(contentsOf: output)
    }

    static func remove(_ app: AppBundle) {
        try? FileManager.default.removeItem(at: app.url.deletingLastPathComponent())
    }
}

/// A `LaunchObserver` that records everything and ends the launch when told to.
final class RecordingObserver: LaunchObserver, @unchecked Sendable {
    // All state behind `lock`: the driver calls from its device queue, the test reads from its task.
    private let lock = NSLock()
    private var bytes: [UInt8] = []
    private var launchedAt: ContinuousClock.Instant?
    private var questions = 0
    private var longestGap: Duration = .zero
    private var lastAsked: ContinuousClock.Instant?
    private let decide: @Sendable (String, ContinuousClock.Instant, ContinuousClock.Instant) -> HarnessStop?

    /// - Parameter decide: given the output so far, the launch instant and now: `nil` to keep running.
    init(
        decide: @escaping @Sendable (String, ContinuousClock.Instant, ContinuousClock.Instant) -> HarnessStop? = {
            _, _, _ in nil
        }
    ) {
        self.decide = decide
    }

    func launched(at instant: ContinuousClock.Instant) {
        lock.withLock { launchedAt = instant }
    }

    func output(_ chunk: [UInt8]) {
        lock.withLock { bytes += chunk }
    }

    func shouldEnd(at instant: ContinuousClock.Instant) -> HarnessStop? {
        let (text, launched) = lock.withLock { () -> (String, ContinuousClock.Instant?) in
            questions += 1
            if let lastAsked { longestGap = max(longestGap, instant - lastAsked) }
            lastAsked = instant
            return (String(decoding: bytes, as: UTF8.self), launchedAt)
        }
        return decide(text, launched ?? instant, instant)
    }

    var text: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }
    var wasLaunched: Bool { lock.withLock { launchedAt != nil } }
    var timesAsked: Int { lock.withLock { questions } }
}
