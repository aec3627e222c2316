import Dispatch

/// A serial executor over a private `DispatchQueue`: actors that use it run their (blocking)
/// libimobiledevice calls on that queue's thread, never on Swift's cooperative thread pool.
final class DeviceQueueExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked: the only state is the immutable queue.
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
}
