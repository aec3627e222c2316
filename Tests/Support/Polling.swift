/// A wait that gave up: what was awaited and for how long (the test fails instead of hanging).
package struct PollingTimeout: Error, CustomStringConvertible {
    package var what: String
    package var timeout: Duration
    package var description: String { "gave up after \(timeout) waiting until \(what)" }
}

/// Checks `condition` every `interval` until it holds.
/// - Throws: `PollingTimeout` after `timeout`; `CancellationError` when the test is cancelled.
package func waitUntil(
    _ what: String, timeout: Duration = .seconds(60), interval: Duration = .milliseconds(20),
    _ condition: () throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw PollingTimeout(what: what, timeout: timeout) }
        try await Task.sleep(for: interval)
    }
}
