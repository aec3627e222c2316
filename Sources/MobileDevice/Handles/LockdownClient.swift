internal import CIMobileDevice
import Foundation

/// Owns a `lockdownd_client_t`; `deinit` frees it (which ends the session with StopSession).
/// Not Sendable: lives on the owning `DeviceSession` actor.
final class LockdownClient {
    static let label = "launchbench"

    let udid: String
    private let handle: lockdownd_client_t

    /// Connects to lockdownd.
    /// - Parameters:
    ///   - device: the device to talk to.
    ///   - handshake: `true` to pair-check and start a session (needed for services); `false` reads
    ///     the public values (name, model, version) even from an untrusted device.
    /// - Throws: `DeviceError` (`.notTrusted`, `.passcodeLocked`, …).
    init(device: DeviceHandle, handshake: Bool) throws {
        let operation = handshake ? "lockdownd_client_new_with_handshake" : "lockdownd_client_new"
        udid = device.udid
        handle = try makeClient(
            operation, udid: device.udid, success: LOCKDOWN_E_SUCCESS, free: lockdownd_client_free,
            new: { client in
                device.withHandle { device in
                    handshake
                        ? lockdownd_client_new_with_handshake(device, &client, Self.label)
                        : lockdownd_client_new(device, &client, Self.label)
                }
            },
            check: { try check($0, operation: operation, udid: device.udid) })
    }

    deinit { lockdownd_client_free(handle) }

    func withHandle<Result>(_ body: (lockdownd_client_t) throws -> Result) rethrows -> Result {
        try body(handle)
    }

    /// `GetValue` for a key (top-level, or in `domain`); `nil` when the device has no such value.
    func value(forKey key: String, domain: String? = nil) throws -> PropertyListValue? {
        var node: plist_t?
        let code = lockdownd_get_value(handle, domain, key, &node)
        let owned = PlistNode(owning: node)
        if code == LOCKDOWN_E_MISSING_VALUE || code == LOCKDOWN_E_MISSING_KEY { return nil }
        try check(code, operation: "lockdownd_get_value \(key)", udid: udid)
        return owned?.value
    }

    /// A string value, or `""` when the device does not have it.
    func string(forKey key: String) throws -> String {
        try value(forKey: key)?.stringValue ?? ""
    }

    /// Asks lockdownd to start `service`; the descriptor says which port (and whether TLS) to use.
    /// - Throws: `DeviceError.serviceUnavailable` when the device refuses it.
    func startService(_ service: String) throws -> ServiceDescriptor {
        var descriptor: lockdownd_service_descriptor_t?
        let code = lockdownd_start_service(handle, service, &descriptor)
        let owned = ServiceDescriptor(owning: descriptor)
        try check(code, operation: "lockdownd_start_service \(service)", udid: udid, service: service)
        guard let owned, owned.port != 0 else {
            throw DeviceError.protocolError(
                operation: "StartService \(service)", udid: udid, detail: "no port in the reply")
        }
        return owned
    }
}

/// Owns a `lockdownd_service_descriptor_t` (port, TLS flag, service name).
final class ServiceDescriptor {
    private let handle: lockdownd_service_descriptor_t

    init?(owning handle: lockdownd_service_descriptor_t?) {
        guard let handle else { return nil }
        self.handle = handle
    }

    /// A descriptor made here rather than by lockdown, e.g. to test the TLS path against a plain service.
    convenience init(port: UInt16, usesTLS: Bool) {
        let handle = malloc(MemoryLayout<lockdownd_service_descriptor>.size)!
            .bindMemory(to: lockdownd_service_descriptor.self, capacity: 1)
        handle.initialize(to: lockdownd_service_descriptor())  // freed by lockdownd_service_descriptor_free
        handle.pointee.port = port
        handle.pointee.ssl_enabled = usesTLS ? 1 : 0
        self.init(owning: handle)!
    }

    deinit { lockdownd_service_descriptor_free(handle) }

    var port: UInt16 { handle.pointee.port }
    /// The service talks TLS (lockdown's `EnableServiceSSL`).
    var usesTLS: Bool { handle.pointee.ssl_enabled != 0 }

    func withHandle<Result>(_ body: (lockdownd_service_descriptor_t) throws -> Result) rethrows -> Result {
        try body(handle)
    }
}
