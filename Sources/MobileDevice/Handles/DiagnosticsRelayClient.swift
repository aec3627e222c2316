internal import CIMobileDevice

/// Owns a `diagnostics_relay_client_t` (restart, shutdown, IORegistry queries) and frees it in `deinit`.
/// Not Sendable: lives on the owning `DeviceSession` actor.
final class DiagnosticsRelayClient {
    /// Tried in this order, like idevicediagnostics.
    static let services = ["com.apple.mobile.diagnostics_relay", "com.apple.iosdiagnostics.relay"]

    /// Starts the relay under the first of `services` the device offers.
    /// - Throws: the last name's refusal when the device offers neither; any other `DeviceError` at once.
    static func startService(on lockdown: LockdownClient) throws -> ServiceDescriptor {
        var refusal: DeviceError?
        for service in services {
            do {
                return try lockdown.startService(service)
            } catch let error as DeviceError {
                guard case .serviceUnavailable = error else { throw error }
                refusal = error
            }
        }
        throw refusal!
    }

    let udid: String
    private let handle: diagnostics_relay_client_t

    init(device: DeviceHandle, service: ServiceDescriptor) throws {
        udid = device.udid
        handle = try makeClient(
            "diagnostics_relay_client_new", udid: device.udid, success: DIAGNOSTICS_RELAY_E_SUCCESS,
            free: diagnostics_relay_client_free,
            new: { client in
                device.withHandle { device in service.withHandle { diagnostics_relay_client_new(device, $0, &client) } }
            },
            check: { try check($0, operation: "diagnostics_relay_client_new", udid: device.udid) })
    }

    deinit { diagnostics_relay_client_free(handle) }

    /// Asks for a restart that starts once this client disconnects.
    func restartAfterDisconnect() throws {
        try check(
            diagnostics_relay_restart(handle, DIAGNOSTICS_RELAY_ACTION_FLAG_WAIT_FOR_DISCONNECT),
            operation: "diagnostics_relay_restart", udid: udid)
    }

    /// The `Diagnostics` dictionary of an `IORegistry` request for the entry named `name` or of class `className`
    /// (libimobiledevice 1.3.0 `diagnostics_relay_query_ioregistry_entry`: it sends `EntryName`/`EntryClass` and
    /// copies the reply's `Diagnostics`, which holds the entry's properties under `IORegistry`); `nil` when the
    /// device answered `UnknownRequest` or without a `Diagnostics`.
    func ioregistryEntry(name: String?, className: String?) throws -> PropertyListValue? {
        var node: plist_t?
        let code = diagnostics_relay_query_ioregistry_entry(handle, name, className, &node)
        let owned = PlistNode(owning: node)
        if code == DIAGNOSTICS_RELAY_E_UNKNOWN_REQUEST { return nil }
        try check(code, operation: "diagnostics_relay_query_ioregistry_entry", udid: udid)
        return owned?.value
    }

    /// Ends the conversation politely, as idevicediagnostics does.
    func goodbye() throws {
        try check(diagnostics_relay_goodbye(handle), operation: "diagnostics_relay_goodbye", udid: udid)
    }
}
