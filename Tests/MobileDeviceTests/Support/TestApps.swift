import DeviceEmulator
import Foundation
import LaunchBench
import TestSupport

/// Copies of the Sample.app fixture with a scripted emulator profile, as `.app` folders or `.ipa`s.
enum TestApps {
    static let fixture = PackageRoot.at("Fixtures/SampleApp/Sample.app")

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
        process.executableURL = PackageRoot.at("Scripts/make-ipa")
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
final class RecordingObserver: LaunchObserver, Sendable {
    /// The driver calls from its device queue, the test reads from its task.
    private struct State {
        var bytes: [UInt8] = []
        var launchedAt: ContinuousClock.Instant?
        var questions = 0
        var longestGap: Duration = .zero
        var lastAsked: ContinuousClock.Instant?
    }

    private let state = Locked(State())
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
        state.withLock { $0.launchedAt = instant }
    }

    func output(_ chunk: [UInt8]) {
        state.withLock { $0.bytes += chunk }
    }

    func shouldEnd(at instant: ContinuousClock.Instant) -> HarnessStop? {
        let (text, launched) = state.withLock { state -> (String, ContinuousClock.Instant?) in
            state.questions += 1
            if let lastAsked = state.lastAsked { state.longestGap = max(state.longestGap, instant - lastAsked) }
            state.lastAsked = instant
            return (String(decoding: state.bytes, as: UTF8.self), state.launchedAt)
        }
        return decide(text, launched ?? instant, instant)
    }

    var text: String { state.withLock { String(decoding: $0.bytes, as: UTF8.self) } }
    var wasLaunched: Bool { state.withLock { $0.launchedAt != nil } }
    var timesAsked: Int { state.withLock { $0.questions } }
}
