import Foundation

extension NSLock {
    /// Runs `body` with the lock held (`NSLocking.withLock` needs macOS 14; the package supports macOS 13).
    func critical<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
