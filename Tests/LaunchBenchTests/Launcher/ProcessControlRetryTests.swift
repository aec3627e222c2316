import Foundation
import TestSupport
import Testing

@testable import LaunchBench

/// The launch step over process control when the phone refuses for a moment (the last instance still
/// terminating, busy, locked): tried again a bounded number of times, counted, and named when it persists; and
/// a termination notice whose signal is 0 is a clean exit.
@Suite(.timeLimit(.minutes(1))) struct ProcessControlRetryTests {
    static let alreadyRunning = ProcessControlRefusal(chain: [
        .init(
            domain: "com.apple.dt.deviceprocesscontrolservice", code: 2,
            description: "Executable 'private' is already running as process 812.",
            reason: "killExisting requested, but found the existing PID.")
    ])

    /// Refuses the first `refusals` launches with `refusal`, then launches a process that exits cleanly.
    final class RefusingControl: ProcessControl {
        let refusal: ProcessControlRefusal
        let refusals: Int
        let attempts = Locked(0)

        init(_ refusal: ProcessControlRefusal, refusals: Int) {
            self.refusal = refusal
            self.refusals = refusals
        }

        func launch(_ request: LaunchRequest) async throws -> ControlledProcess {
            let attempt = attempts.withLock { attempts -> Int in
                attempts += 1
                return attempts
            }
            if attempt <= refusals {
                throw ProcessControlError(
                    .refused, refusal.message(device: "U", bundleID: request.bundleID), refusal: refusal)
            }
            let (events, continuation) = AsyncStream.makeStream(of: ProcessEvent.self)
            continuation.yield(.output(Array("[launchbench] done\n".utf8)))
            continuation.yield(.terminated(exitCode: 0, signal: 0))
            return ControlledProcess(pid: 321, events: events)
        }

        func kill(_ pid: Int) async throws {}
    }

    /// Records the launch and counts the retries it is told of.
    final class CountingObserver: LaunchObserver {
        let recording = RecordingObserver()
        let retries = Locked<[String]>([])
        func launched(at instant: ContinuousClock.Instant) { recording.launched(at: instant) }
        func output(_ bytes: [UInt8]) { recording.output(bytes) }
        func shouldEnd(at instant: ContinuousClock.Instant) -> HarnessStop? { nil }
        func launchRetried(after refusal: String) { retries.withLock { $0.append(refusal) } }
    }

    static func launcher(_ control: any ProcessControl) -> ProcessControlLauncher {
        var launcher = ProcessControlLauncher(control: control)
        launcher.retryDelays = Array(repeating: .milliseconds(2), count: 4)
        return launcher
    }

    @Test func aBriefRefusalIsTriedAgainAndCounted() async throws {
        let control = RefusingControl(Self.alreadyRunning, refusals: 2)
        let observer = CountingObserver()
        let termination = try await Self.launcher(control).launch(
            LaunchRequest(bundleID: "x"), on: "U", observer: observer)
        // Signal 0 is no signal: the notice of a clean exit.
        #expect(termination == .exited(status: 0))
        #expect(control.attempts.current == 3)
        #expect(observer.retries.current == ["alreadyRunning", "alreadyRunning"])
    }

    @Test func aRefusalThatPersistsIsNamedWithItsCauseAndAttempts() async throws {
        let control = RefusingControl(Self.alreadyRunning, refusals: 100)
        let observer = CountingObserver()
        let error = await #expect(throws: ProcessControlError.self) {
            _ = try await Self.launcher(control).launch(LaunchRequest(bundleID: "x"), on: "U", observer: observer)
        }
        #expect(control.attempts.current == 5)
        #expect(observer.retries.current.count == 4)
        let message = error?.message ?? ""
        #expect(message.contains("U refused to launch x through process control (5 attempts)"), "\(message)")
        #expect(message.contains("previous instance was still running"), "\(message)")
        #expect(message.contains("already running as process 812"), "\(message)")
        #expect(message.contains("tried again 4 times"), "\(message)")
    }

    @Test func aRefusalThatCannotClearIsNotTriedAgain() async throws {
        let notFound = ProcessControlRefusal(
            domain: "FBSOpenApplicationErrorDomain", code: 4, codeName: "NotFound", reason: "returned nil for \"x\"")
        let control = RefusingControl(notFound, refusals: 1)
        let observer = CountingObserver()
        await #expect(throws: ProcessControlError.self) {
            _ = try await Self.launcher(control).launch(LaunchRequest(bundleID: "x"), on: "U", observer: observer)
        }
        #expect(control.attempts.current == 1 && observer.retries.current.isEmpty)
    }

    static let locked = ProcessControlRefusal(chain: [
        .init(domain: "com.apple.dt.deviceprocesscontrolservice", code: 2, description: "Request to launch x failed."),
        .init(domain: "FBSOpenApplicationErrorDomain", code: 7, codeName: "Locked"),
    ])

    /// A locked phone gets the four retries; with `--require` it is waited for up to `--require-wait`, asked every
    /// `--require-poll`, and no longer.
    @Test func aLockedPhoneIsWaitedForOnlyAsLongAsRequireAllows() async throws {
        // Without --require: the four retries, then the cause, and how to wait longer.
        let plain = RefusingControl(Self.locked, refusals: 100)
        let error = await #expect(throws: ProcessControlError.self) {
            _ = try await Self.launcher(plain).launch(
                LaunchRequest(bundleID: "x"), on: "U", observer: CountingObserver())
        }
        #expect(plain.attempts.current == 5)
        #expect(error?.message.contains("the phone is locked") == true && error?.message.contains("--require") == true)

        // With --require: unlocked while waited for, the launch goes ahead.
        var waiting = Self.launcher(RefusingControl(Self.locked, refusals: 8))
        waiting.lockedWait = .seconds(20)
        waiting.lockedPoll = .milliseconds(5)
        let observer = CountingObserver()
        #expect(
            try await waiting.launch(LaunchRequest(bundleID: "x"), on: "U", observer: observer) == .exited(status: 0))
        #expect(observer.retries.current.count == 8)

        // Locked for longer than --require-wait: refused, naming the wait.
        let stays = RefusingControl(Self.locked, refusals: 1_000_000)
        var bounded = Self.launcher(stays)
        // 5 s: long past the four retries (8 ms here) even on a loaded CI host, so the wait itself is what ends it.
        bounded.lockedWait = .seconds(5)
        bounded.lockedPoll = .milliseconds(20)
        let start = ContinuousClock.now
        let late = await #expect(throws: ProcessControlError.self) {
            _ = try await bounded.launch(LaunchRequest(bundleID: "x"), on: "U", observer: CountingObserver())
        }
        #expect(ContinuousClock.now - start < .seconds(30))
        #expect(stays.attempts.current > 5)
        #expect(
            late?.message.contains("waited 5 s (--require-wait) for the phone to be unlocked") == true,
            "\(late?.message ?? "")")
    }
}
