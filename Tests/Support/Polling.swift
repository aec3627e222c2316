/// A wait that gave up: what was awaited and for how long (the test fails instead of hanging).
public struct PollingTimeout: Error, CustomStringConvertible {
    public var what: String
    public var timeout: Duration
    public var description: String { "gave up after \(timeout) waiting until \(what)" }
}

/// Checks `condition` every `interval` until it holds.
/// - Throws: `PollingTimeout` after `timeout`; `CancellationError` when the test is cancelled.
public func waitUntil(
    _ what: String, timeout: Duration = .seconds(60), interval: Duration = .milliseconds(20),
    _ condition: () throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw PollingTimeout(what: what, timeout: timeout) }
        try await Task.sleep(for: interval)
    }
}
