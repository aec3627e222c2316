import Foundation

/// A value behind a lock, for state shared between threads the concurrency checker cannot see:
/// libimobiledevice's callback threads, NIO event loops and async callers. The project's one lock idiom:
/// a class holding `let state: Locked<State>` is checked `Sendable`, and a read-modify-write is one
/// `withLock`, so it is atomic.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var value: Value

    /// Guards `value`.
    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access. Keep it short and never call out to user code from inside.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the value.
    package var current: Value { withLock { $0 } }
}
