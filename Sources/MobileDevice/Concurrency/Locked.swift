import Foundation

/// A value behind a lock, for state shared between a C library thread and Swift.
final class Locked<Value>: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    var current: Value { withLock { $0 } }
}

/// Set once when the Swift task that started a blocking operation is cancelled; the blocking
/// loop on the device queue polls it.
final class CancellationFlag: Sendable {
    private let flag = Locked(false)

    func cancel() { flag.withLock { $0 = true } }
    var isCancelled: Bool { flag.current }
}
