import Foundation
import LaunchBench
import Testing

@testable import launchbench

/// Without `swift-demangle`, the note that Swift initializers keep their mangled names is said once, and only
/// when a launch's initializer functions (kdebug's) include a mangled Swift name: not on every run.
@Suite struct MangledNamesNoteTests {
    final class Recorder: RunReporter {
        private let events = Locked<[String]>([])
        var notes: [String] { events.current }
        func report(_ event: RunEvent) {
            if case .deviceNote(let device, let text) = event {
                events.withLock { $0.append("\(device.udid): \(text)") }
            }
        }
    }

    private static let device = DeviceInfo(
        udid: "U1", name: "Phone", productType: "iPhone14,5", osVersion: "16.7", buildVersion: "20H19")

    private static func launch(_ iteration: Int, functions: [String]?) -> Sample {
        var sample = Sample(
            runID: "r", deviceUDID: "U1", deviceName: "Phone", productType: "iPhone14,5", osVersion: "16.7",
            appBundleID: "a.b", appVersion: "1 (1)", iteration: iteration, kind: .cold, status: .ok,
            startedAt: Date(timeIntervalSince1970: 0))
        sample.initializers = functions.map { names in
            [
                InitializerTime(
                    image: "SampleKit", ms: 2, functions: names.map { InitializerFunctionTime(function: $0, ms: 1) })
            ]
        }
        return sample
    }

    @Test func saidOnceWhenALaunchKeepsASwiftNameMangled() {
        let recorder = Recorder()
        let note = MangledNamesNote(forwardingTo: recorder, note: "keep their mangled names")
        note.report(.deviceStarted(Self.device, iterations: 4))
        // dyld's statistics (no functions), C functions and a demangled Swift name: nothing to say.
        note.report(.launchFinished(Self.launch(1, functions: nil)))
        note.report(.launchFinished(Self.launch(2, functions: ["networking_warm_cache", "func_0x4000"])))
        note.report(.launchFinished(Self.launch(3, functions: ["static SampleKit.Theme.loadFonts() -> ()"])))
        #expect(recorder.notes.isEmpty)
        // A Swift initializer left mangled: said, once.
        note.report(.launchFinished(Self.launch(4, functions: ["$s9SampleKit5ThemeO9loadFontsyyFZ"])))
        note.report(.launchFinished(Self.launch(5, functions: ["$s9SampleKit5ThemeO9loadFontsyyFZ+0x8"])))
        #expect(recorder.notes == ["U1: keep their mangled names"])
    }
}
