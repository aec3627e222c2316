import Foundation
import LaunchBench
import NIOCore

/// One emulated iPhone in a lab: its identity, its lockdown values, its open connections and the
/// per-device state that services keep (installed apps, running processes…).
package final class EmulatedDevice: Sendable {
    /// The identity the device was created with (its name may change later through `SetValue`).
    package let spec: EmulatedDeviceSpec
    /// usbmuxd's handle for the device (> 0). It stays the same across simulated detach/attach.
    package let deviceID: Int
    /// A private folder for this device's files, inside the lab's temp root; removed when the lab stops.
    package let directory: URL

    private struct State {
        var isAttached = true
        var isStartingUp = false
        var values: LockdownValues
        var connections: [ObjectIdentifier: any Channel] = [:]
        var pendingServices: [Int: PendingService] = [:]
        var nextServicePort = EmulatedDevice.firstServicePort
        var serviceStates: [ObjectIdentifier: any Sendable] = [:]
    }

    // The dictionaries inside `values` hold plist values only; all access goes through the lock.
    private let state: Locked<State>

    init(spec: EmulatedDeviceSpec, deviceID: Int, directory: URL) {
        self.spec = spec
        self.deviceID = deviceID
        self.directory = directory
        self.state = Locked(State(values: LockdownValues(spec: spec)))
    }

    /// The UDID (dashed 25-character form).
    package var udid: String { spec.udid }

    /// The current device name (`DeviceName`), which `idevicename NAME` can change.
    package var name: String { (lockdownValue(domain: nil, key: "DeviceName") as? String) ?? spec.name }

    /// The parsed iOS version, for per-version behaviour (e.g. no debugserver from iOS 17 on).
    package var osVersion: OSVersion? { OSVersion(spec.osVersion) }

    /// Whether the device is plugged in (not detached, not rebooting).
    package var isAttached: Bool { state.withLock { $0.isAttached } }

    /// Listed by usbmuxd but lockdownd not answering yet, as in the seconds after a real phone boots:
    /// `Connect` to the lockdown port is refused (usbmuxd Result 3, ECONNREFUSED). A test switch.
    package var isStartingUp: Bool {
        get { state.withLock { $0.isStartingUp } }
        set { state.withLock { $0.isStartingUp = newValue } }
    }

    /// The device as the core model sees it, with its current name.
    package var info: DeviceInfo {
        var info = spec.info
        info.name = name
        return info
    }

    /// The state object of type `S` that a service keeps for this device, created on first use.
    ///
    /// One instance per device and type, for the life of the device (it survives detach/attach, as a
    /// phone's storage survives a reboot). `S` does its own locking.
    /// - Parameters:
    ///   - type: the state's type; it is also the key.
    ///   - create: makes the instance the first time; called under the device's lock, keep it cheap.
    package func serviceState<S: AnyObject & Sendable>(_ type: S.Type, create: () -> S) -> S {
        state.withLock { state in
            if let existing = state.serviceStates[ObjectIdentifier(type)] as? S { return existing }
            let made = create()
            state.serviceStates[ObjectIdentifier(type)] = made
            return made
        }
    }

    // MARK: - Lockdown values

    /// A lockdown value (`domain` nil = top level; `key` nil = the whole domain as a dictionary).
    package func lockdownValue(domain: String?, key: String?) -> Any? {
        let stored = state.withLock { $0.values.value(domain: domain, key: key) }
        // The battery and disk usage keys change while the phone runs (`EmulatedConditions`).
        guard let live = services.conditions.lockdownValues(domain: domain) else { return stored }
        guard let key else { return (stored as? [String: Any] ?? [:]).merging(live) { _, new in new } }
        return live[key] ?? stored
    }

    /// Sets a lockdown value, as `SetValue` does. `value` must be a plist type.
    package func setLockdownValue(_ value: Any, domain: String?, key: String) {
        state.withLock { $0.values.set(value, domain: domain, key: key) }
    }

    func removeLockdownValue(domain: String?, key: String) {
        state.withLock { $0.values.remove(domain: domain, key: key) }
    }

    // MARK: - Attachment and connections (driven by the lab)

    /// Marks the device attached or detached; on detach returns the connections to close and forgets
    /// every port handed out by StartService.
    func setAttached(_ attached: Bool) -> [any Channel] {
        state.withLock { state in
            state.isAttached = attached
            guard !attached else { return [] }
            state.pendingServices.removeAll()
            let open = Array(state.connections.values)
            state.connections.removeAll()
            return open
        }
    }

    /// Records an open device-side connection; `false` when the device is detached (the caller refuses).
    func track(_ channel: any Channel) -> Bool {
        let registered = state.withLock { state -> Bool in
            guard state.isAttached else { return false }
            state.connections[ObjectIdentifier(channel)] = channel
            return true
        }
        if registered {
            channel.closeFuture.whenComplete { [weak self] _ in
                self?.state.withLock { _ = $0.connections.removeValue(forKey: ObjectIdentifier(channel)) }
            }
        }
        return registered
    }

    /// Every open device-side connection (lockdown and services).
    var openConnections: [any Channel] { state.withLock { Array($0.connections.values) } }

    // MARK: - Service ports

    static let lockdownPort = 62078
    static let firstServicePort = 49152
    private static let maxPendingServices = 64

    struct PendingService {
        var name: String
        var service: any EmulatedService
        /// The connection starts with a TLS handshake (`EnableServiceSSL`), the device being the server.
        var tls = false
    }

    /// Hands out a port for a started service, as lockdownd does: one `Connect` to it reaches the service.
    func allocatePort(for name: String, service: any EmulatedService, tls: Bool = false) -> Int {
        state.withLock { state in
            var port = state.nextServicePort
            while state.pendingServices[port] != nil { port = Self.nextPort(after: port) }
            state.nextServicePort = Self.nextPort(after: port)
            if state.pendingServices.count >= Self.maxPendingServices,
                let oldest = state.pendingServices.keys.min(by: { Self.age($0, next: port) > Self.age($1, next: port) })
            {
                state.pendingServices[oldest] = nil
            }
            state.pendingServices[port] = PendingService(name: name, service: service, tls: tls)
            return port
        }
    }

    /// The service waiting on `port`, consumed: a second `Connect` to the same port is refused.
    func takeService(onPort port: Int) -> PendingService? {
        state.withLock { $0.pendingServices.removeValue(forKey: port) }
    }

    private static func nextPort(after port: Int) -> Int { port >= 65535 ? firstServicePort : port + 1 }

    // How long ago a port was handed out, counting backwards from the next one to hand out.
    private static func age(_ port: Int, next: Int) -> Int {
        let span = 65536 - firstServicePort
        return ((next - port) % span + span) % span
    }
}
