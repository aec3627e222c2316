import Foundation
import TestSupport
import Testing

@testable import LaunchBench

/// The launch step over process control, against a scripted phone: how a launch ends when the phone sends, or
/// does not send, the process's termination notice.
@Suite(.timeLimit(.minutes(1))) struct ProcessControlLauncherUnitTests {
    /// A phone whose process writes `output`, then ends as `end` says (`nil`: no termination notice ever, as to a
    /// client without the terminationCallback capability); it records the kills it is asked for.
    final class ScriptedControl: ProcessControl {
        let output: String
        let end: ProcessEvent?
        let kills = Locked<[Int]>([])

        init(output: String, end: ProcessEvent?) {
            self.output = output
            self.end = end
        }

        func launch(_ request: LaunchRequest) async throws -> ControlledProcess {
            let (events, continuation) = AsyncStream.makeStream(of: ProcessEvent.self)
            continuation.yield(.output(Array(output.utf8)))
            if let end { continuation.yield(end) }
            return ControlledProcess(pid: 321, events: events)
        }

        func kill(_ pid: Int) async throws {
            kills.withLock { $0.append(pid) }
        }
    }

    static func observer() -> RecordingObserver {
        RecordingObserver { text, launched, now in
            text.contains("[launchbench] done") ? .complete : now - launched >= .seconds(30) ? .timeout : nil
        }
    }

    @Test func theNoticeEndsTheLaunchWithTheExitOrTheCrash() async throws {
        for (end, expected) in [
            (ProcessEvent.terminated(exitCode: 0, signal: nil), LaunchTermination.exited(status: 0)),
            (.terminated(exitCode: nil, signal: 11), .crashed(signal: 11)),
        ] {
            let control = ScriptedControl(output: "[launchbench] main 300\n", end: end)
            let termination = try await ProcessControlLauncher(control: control).launch(
                LaunchRequest(bundleID: "x"), on: "U", observer: Self.observer())
            #expect(termination == expected)
            #expect(control.kills.current.isEmpty)
        }
    }

    /// An observer that records, and whose launch is complete once `done` arrived.
    final class CompletingObserver: LaunchObserver {
        let recording = RecordingObserver()
        func launched(at instant: ContinuousClock.Instant) { recording.launched(at: instant) }
        func output(_ bytes: [UInt8]) { recording.output(bytes) }
        func shouldEnd(at instant: ContinuousClock.Instant) -> HarnessStop? { nil }
        var isComplete: Bool { recording.text.contains("[launchbench] done") }
    }

    /// The phone relays output and the termination notice separately: output that comes after the notice reaches
    /// the observer, and the launch returns once it is complete.
    @Test func outputAfterTheNoticeStillCounts() async throws {
        final class LateControl: ProcessControl {
            let (events, phone) = AsyncStream.makeStream(of: ProcessEvent.self)
            func launch(_ request: LaunchRequest) async throws -> ControlledProcess {
                phone.yield(.output(Array("[launchbench] main 300\n".utf8)))
                phone.yield(.terminated(exitCode: 0, signal: nil))
                return ControlledProcess(pid: 321, events: events)
            }
            func kill(_ pid: Int) async throws {}
        }
        let control = LateControl()
        var launcher = ProcessControlLauncher(control: control)
        launcher.lateOutputWait = .seconds(30)
        let observer = CompletingObserver()
        let launch = Task { try await launcher.launch(LaunchRequest(bundleID: "x"), on: "U", observer: observer) }
        try await observer.recording.waitForOutput("main") { $0.contains("main") }
        control.phone.yield(.output(Array("[launchbench] done\n".utf8)))
        #expect(try await launch.value == .exited(status: 0))
        #expect(observer.recording.text == "[launchbench] main 300\n[launchbench] done\n")
    }

    /// Without termination notices (a client that did not publish the capability) an app that printed `done` is
    /// ended by launchbench: killed, and the launch returns after at most `killWait` without its notice.
    @Test func withoutANoticeTheLaunchEndsOnTheObserverAndAKill() async throws {
        let control = ScriptedControl(output: "[launchbench] done\n", end: nil)
        var launcher = ProcessControlLauncher(control: control)
        launcher.killWait = .milliseconds(50)
        let observer = Self.observer()
        let termination = try await launcher.launch(LaunchRequest(bundleID: "x"), on: "U", observer: observer)
        #expect(termination == .endedByHarness(.complete))
        #expect(control.kills.current == [321])
        #expect(observer.text == "[launchbench] done\n")
    }
}
