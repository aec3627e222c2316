import LaunchBench

/// Who listens now (a device's open syslog relay connections, its running kdebug sessions): each is added
/// under a key of its own and removed by that key when it goes away.
final class Subscribers<Value: Sendable>: Sendable {
    private struct State {
        var lastKey = 0
        var entries: [Int: Value] = [:]
    }

    private let state = Locked(State())

    /// Adds `value`; returns its key for ``remove(_:)``.
    func add(_ value: Value) -> Int {
        state.withLock { state in
            state.lastKey += 1
            state.entries[state.lastKey] = value
            return state.lastKey
        }
    }

    func remove(_ key: Int) {
        _ = state.withLock { $0.entries.removeValue(forKey: key) }
    }

    /// The subscribers now, copied under the lock so that sending to them happens outside it.
    var all: [Value] { state.withLock { Array($0.entries.values) } }

    var count: Int { state.withLock { $0.entries.count } }
}
