import Dispatch
import Testing

@testable import MobileDevice

/// Code on a `DeviceQueueExecutor`'s queue is isolated to the actor that runs on it (`checkIsolated`).
@Suite struct DeviceQueueExecutorTests {
    actor OnQueue {
        let executor = DeviceQueueExecutor(label: "launchbench.test.executor")
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        var count = 41
    }

    // `assumeIsolated` is macOS 14+; the package supports macOS 13.
    @available(macOS 14.0, *)
    @Test func codeOnTheQueueIsIsolatedToTheActor() {
        let actor = OnQueue()
        let value = actor.executor.queue.sync { actor.assumeIsolated { $0.count + 1 } }
        #expect(value == 42)
    }
}
