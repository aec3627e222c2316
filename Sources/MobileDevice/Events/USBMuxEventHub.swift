internal import CIMobileDevice
import Dispatch
import LaunchBench

/// The process's one listener on libusbmuxd's hot-plug events, fanned out to any number of Swift
/// subscribers.
///
/// Why one permanent listener: libimobiledevice 1.3.0's `idevice_event_subscribe` keeps a single
/// process-wide callback (the runner, installs and restarts listen at the same time), and
/// libusbmuxd 2.0.2 cancels its monitor thread when its last listener leaves — a listener added
/// while that cancellation is under way is left without a monitor and never hears anything. So the
/// hub subscribes once (`usbmuxd_events_subscribe`), on first use, and never leaves.
final class USBMuxEventHub: Sendable {
    static let shared = USBMuxEventHub(start: startUSBMuxListener)

    private struct State {
        var subscribers: [UInt64: @Sendable (DeviceEvent) -> Void] = [:]
        var nextToken: UInt64 = 0
        /// Devices reported attached and not detached since, in order: replayed to new subscribers.
        var present: [String] = []
    }

    private let state = Locked(State())
    /// Subscribers are called here, in order, never with `state`'s lock held: a handler may subscribe or
    /// unsubscribe (an `AsyncStream` ending does) without deadlocking. Work is queued under the lock, so the
    /// queue's order is the order in which events and subscriptions happened.
    private let delivery = DispatchQueue(label: "launchbench.usbmuxd.events")
    /// Starts the process's listener, whose callback calls `deliver` (the shared hub: libusbmuxd's).
    private let start: @Sendable () throws -> Void
    /// Separate from `state`: libusbmuxd may call back synchronously from inside the subscribe call.
    private let started = Locked(false)

    /// A hub fed by whatever `start` starts (tests: nothing, they call `deliver` themselves).
    init(start: @escaping @Sendable () throws -> Void) {
        self.start = start
    }

    /// Adds a subscriber: it first gets `attached` for every device known to be present, then every
    /// event, in order, on the hub's delivery queue (keep `handler` short and non-blocking). Once
    /// `unsubscribe` returns, or has been called from inside `handler`, it is not called again.
    /// - Returns: the token for `unsubscribe`.
    /// - Throws: `DeviceError.failed` when libusbmuxd cannot start its monitor thread.
    func subscribe(_ handler: @escaping @Sendable (DeviceEvent) -> Void) throws -> UInt64 {
        try startIfNeeded()
        return state.withLock { state in
            state.nextToken += 1
            let token = state.nextToken
            state.subscribers[token] = handler
            let present = state.present
            delivery.async { for udid in present { self.call(token, with: .attached(udid: udid)) } }
            return token
        }
    }

    func unsubscribe(_ token: UInt64) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: token) }
    }

    /// Records `event` and queues it for every current subscriber (libusbmuxd's callback calls this).
    func deliver(_ event: DeviceEvent) {
        state.withLock { state in
            switch event {
            case .attached(let udid):
                if !state.present.contains(udid) { state.present.append(udid) }
            case .detached(let udid):
                state.present.removeAll { $0 == udid }
            }
            let tokens = Array(state.subscribers.keys)
            delivery.async { for token in tokens { self.call(token, with: event) } }
        }
    }

    /// On the delivery queue: calls the subscriber with the lock released, unless it left meanwhile.
    private func call(_ token: UInt64, with event: DeviceEvent) {
        guard let handler = state.withLock({ $0.subscribers[token] }) else { return }
        handler(event)
    }

    private func startIfNeeded() throws {
        try started.withLock { started in
            guard !started else { return }
            try start()
            started = true
        }
    }
}

/// Subscribes the shared hub to libusbmuxd's hot-plug events, once per process (it never leaves).
/// - Throws: `DeviceError.failed` when libusbmuxd cannot start its monitor thread.
private func startUSBMuxListener() throws {
    // With a custom socket (`UNIX:` address, the emulator) libusbmuxd would otherwise wait for
    // /var/run/usbmuxd to appear (inotify) after losing its Listen connection, and never come
    // back; polling retries the configured address every second.
    libusbmuxd_set_use_inotify(0)
    var context: usbmuxd_subscription_context_t?
    let code = usbmuxd_events_subscribe(&context, usbmuxEventCallback, nil)
    guard code == 0 else {
        throw DeviceError.failed(
            udid: nil,
            call: LibraryCall(
                library: .idevice, code: code, text: "could not start the usbmuxd event listener",
                operation: "usbmuxd_events_subscribe"))
    }
}

/// libusbmuxd's callback: on its monitor thread, or synchronously inside `usbmuxd_events_subscribe`
/// when the monitor already runs.
private let usbmuxEventCallback: usbmuxd_event_cb_t = { event, _ in
    guard let event else { return }
    let udid = withUnsafeBytes(of: event.pointee.device.udid) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
    switch event.pointee.event {
    case Int32(UE_DEVICE_ADD.rawValue): USBMuxEventHub.shared.deliver(.attached(udid: udid))
    case Int32(UE_DEVICE_REMOVE.rawValue): USBMuxEventHub.shared.deliver(.detached(udid: udid))
    default: break
    }
}
