import LaunchBench

/// Set once when the Swift task that started a blocking operation is cancelled; the blocking
/// loop on the device queue polls it.
final class CancellationFlag: Sendable {
    private let flag = Locked(false)

    func cancel() { flag.withLock { $0 = true } }
    var isCancelled: Bool { flag.current }
}
