import Foundation

/// Runs CPU-heavy test work on a thread of its own. Swift Testing runs every test on the cooperative pool,
/// which is as wide as the machine has cores (2 in CI): two tests computing for seconds there stall every
/// other test's timers and subprocess waits, and those then time out. Keep `#expect` outside `work` (it
/// needs the test's task); return the values to check.
package func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}
