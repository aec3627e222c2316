import LaunchBench

/// One subscriber to the process's usbmuxd hot-plug events (see `USBMuxEventHub`). It first hears
/// `attached` for every device known to be present, then every change, in order.
final class USBMuxEventSubscription: Sendable {
    private let token: Locked<UInt64?>

    /// Starts listening; `handler` runs on the hub's delivery queue: keep it short, never block.
    /// - Throws: `DeviceError.failed` when libusbmuxd cannot start its monitor thread.
    init(handler: @escaping @Sendable (DeviceEvent) -> Void) throws {
        token = Locked(try USBMuxEventHub.shared.subscribe(handler))
    }

    /// Stops listening (idempotent, does not block).
    func cancel() {
        let token = self.token.withLock { token -> UInt64? in
            defer { token = nil }
            return token
        }
        if let token { USBMuxEventHub.shared.unsubscribe(token) }
    }

    deinit { cancel() }
}

extension USBMuxEventSubscription {
    /// Attach/detach events as an `AsyncStream`; the subscription ends when the consumer stops iterating.
    static func stream() throws -> AsyncStream<DeviceEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DeviceEvent.self)
        let subscription = try USBMuxEventSubscription { continuation.yield($0) }
        continuation.onTermination = { _ in subscription.cancel() }
        return stream
    }
}

/// Records events for a blocking waiter on a device queue (installs, restarts).
final class DeviceEventLog: Sendable {
    private let events = Locked<[DeviceEvent]>([])
    private let subscription: USBMuxEventSubscription

    init() throws {
        let events = self.events
        subscription = try USBMuxEventSubscription { event in events.withLock { $0.append(event) } }
    }

    /// Everything seen so far, oldest first.
    var all: [DeviceEvent] { events.current }

    func contains(_ event: DeviceEvent) -> Bool { all.contains(event) }

    /// Stops listening.
    func stop() { subscription.cancel() }
}
