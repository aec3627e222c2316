internal import CIMobileDevice
import Dispatch
import LaunchBench

/// One listener on libusbmuxd's hot-plug events.
///
/// Uses libusbmuxd's multi-listener API (`usbmuxd_events_subscribe` with a context) rather than
/// `idevice_event_subscribe`, which in libimobiledevice 1.3.0 keeps a single process-wide callback:
/// the runner, installs and restarts may listen at the same time. All listeners share libusbmuxd's
/// one `Listen` connection; a new listener first gets an `attached` event per present device.
final class USBMuxEventSubscription: @unchecked Sendable {
    // @unchecked: `context` is written in init and read once in `cancel()` under `state`'s lock.
    private let receiver: Receiver
    private var context: usbmuxd_subscription_context_t?

    /// Starts listening; `handler` is called on libusbmuxd's monitor thread, in order.
    /// - Throws: `DeviceError.failed` when libusbmuxd cannot start its monitor thread.
    init(handler: @escaping @Sendable (DeviceEvent) -> Void) throws {
        Self.preferPolling
        receiver = Receiver(handler: handler)
        let userData = Unmanaged.passRetained(receiver).toOpaque()
        var context: usbmuxd_subscription_context_t?
        let code = usbmuxd_events_subscribe(
            &context,
            { event, userData in
                guard let event, let userData else { return }
                let receiver = Unmanaged<Receiver>.fromOpaque(userData).takeUnretainedValue()
                let udid = withUnsafeBytes(of: event.pointee.device.udid) { raw in
                    String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
                }
                switch event.pointee.event {
                case Int32(UE_DEVICE_ADD.rawValue): receiver.deliver(.attached(udid: udid))
                case Int32(UE_DEVICE_REMOVE.rawValue): receiver.deliver(.detached(udid: udid))
                default: break
                }
            }, userData)
        guard code == 0, let context else {
            Unmanaged<Receiver>.fromOpaque(userData).release()
            throw DeviceError.failed(
                udid: nil,
                call: LibraryCall(
                    library: .idevice, code: code, text: "could not start the usbmuxd event listener",
                    operation: "usbmuxd_events_subscribe"))
        }
        self.context = context
    }

    /// Stops listening. Blocks briefly (libusbmuxd may join its monitor thread): call it from a
    /// device queue or a global queue, never from the handler.
    func cancel() {
        // Closed first: unsubscribing replays a synthetic "removed" for every known device.
        guard receiver.close(), let context else { return }
        usbmuxd_events_unsubscribe(context)
        Unmanaged.passUnretained(receiver).release()
    }

    deinit {
        if let context, receiver.close() {
            usbmuxd_events_unsubscribe(context)
            Unmanaged.passUnretained(receiver).release()
        }
    }

    /// With a custom socket (`UNIX:` address, the emulator) libusbmuxd would otherwise wait for
    /// /var/run/usbmuxd to appear (inotify) after losing its Listen connection, and never reconnect;
    /// polling retries the configured address every second.
    private static let preferPolling: Void = libusbmuxd_set_use_inotify(0)

    /// Holds the handler; events stop once closed.
    private final class Receiver: Sendable {
        let handler: @Sendable (DeviceEvent) -> Void
        private let open = Locked(true)

        init(handler: @escaping @Sendable (DeviceEvent) -> Void) { self.handler = handler }

        func deliver(_ event: DeviceEvent) {
            open.withLock { isOpen in if isOpen { handler(event) } }
        }

        /// `true` for the call that actually closed it.
        func close() -> Bool {
            open.withLock { isOpen in
                defer { isOpen = false }
                return isOpen
            }
        }
    }
}

extension USBMuxEventSubscription {
    /// Attach/detach events as an `AsyncStream`; the listener stops when the consumer stops iterating.
    static func stream() throws -> AsyncStream<DeviceEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DeviceEvent.self)
        let subscription = try USBMuxEventSubscription { continuation.yield($0) }
        continuation.onTermination = { _ in
            // Never unsubscribe on the caller's thread: it may be libusbmuxd's own (deadlock) or the pool.
            DispatchQueue.global().async { subscription.cancel() }
        }
        return stream
    }
}

/// Records events for a blocking waiter on a device queue (installs, restarts).
final class DeviceEventLog: Sendable {
    private let events = Locked<[DeviceEvent]>([])
    private let subscription: Locked<USBMuxEventSubscription?> = Locked(nil)

    init() throws {
        let events = self.events
        let subscription = try USBMuxEventSubscription { event in events.withLock { $0.append(event) } }
        self.subscription.withLock { $0 = subscription }
    }

    /// Everything seen so far, oldest first.
    var all: [DeviceEvent] { events.current }

    func contains(_ event: DeviceEvent) -> Bool { all.contains(event) }

    /// Stops listening (blocking; call from a device queue).
    func stop() {
        let subscription = self.subscription.withLock { current -> USBMuxEventSubscription? in
            defer { current = nil }
            return current
        }
        subscription?.cancel()
    }
}
