import Dispatch

/// A serial executor over a private `DispatchQueue`: actors that use it run their (blocking)
/// libimobiledevice calls on that queue's thread, never on Swift's cooperative thread pool.
final class DeviceQueueExecutor: SerialExecutor, Sendable {
    let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    // The UnownedJob form keeps macOS 13 (the package's minimum) building; ExecutorJob needs macOS 14.
    func enqueue(_ job: UnownedJob) {
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets `assumeIsolated` and isolation checks confirm that code runs on this executor: it does
    /// exactly when it runs on the queue (a crash with a clear message otherwise).
    func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}
