internal import CIMobileDevice

/// Owns a `diagnostics_relay_client_t` (restart, shutdown) and frees it in `deinit`.
/// Not Sendable: lives on the owning `DeviceSession` actor.
final class DiagnosticsRelayClient {
    /// Tried in this order, like idevicediagnostics.
    static let services = ["com.apple.mobile.diagnostics_relay", "com.apple.iosdiagnostics.relay"]

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

    /// Ends the conversation politely, as idevicediagnostics does.
    func goodbye() throws {
        try check(diagnostics_relay_goodbye(handle), operation: "diagnostics_relay_goodbye", udid: udid)
    }
}
