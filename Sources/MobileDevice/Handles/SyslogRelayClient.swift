internal import CIMobileDevice

/// Owns a `syslog_relay_client_t` (the device log as text, `com.apple.syslog_relay`) and frees it in `deinit`.
/// libimobiledevice 1.3.0's capture thread (`syslog_relay_start_capture`) calls back once per byte on a thread
/// of its own; this client reads in blocks with `syslog_relay_receive_with_timeout` on the thread of its
/// `DeviceLogReader` instead, so a stop is seen within one timeout. Not Sendable: lives on that thread.
final class SyslogRelayClient {
    static let service = "com.apple.syslog_relay"

    let udid: String
    private let handle: syslog_relay_client_t

    /// Starts the service through lockdown (`syslog_relay_client_start_service`, which makes its own lockdown
    /// session) on `device`.
    init(device: DeviceHandle) throws {
        udid = device.udid
        handle = try makeClient(
            "syslog_relay_client_start_service", udid: device.udid, success: SYSLOG_RELAY_E_SUCCESS,
            free: syslog_relay_client_free,
            new: { client in
                device.withHandle { syslog_relay_client_start_service($0, &client, "launchbench") }
            },
            check: { try Self.check($0, operation: "syslog_relay_client_start_service", udid: device.udid) })
    }

    deinit { syslog_relay_client_free(handle) }

    /// Up to `buffer.count` bytes, waiting at most `timeoutMs`; empty when none came in time.
    /// - Throws: `DeviceError` when the connection failed (the device went away, the service closed).
    func receive(into buffer: inout [UInt8], timeoutMs: UInt32) throws -> Int {
        var received: UInt32 = 0
        let code = buffer.withUnsafeMutableBytes { bytes in
            syslog_relay_receive_with_timeout(
                handle, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), UInt32(bytes.count), &received,
                timeoutMs)
        }
        // 1.3.0 answers a quiet timeout with SUCCESS and 0 bytes; later versions with TIMEOUT.
        if code == SYSLOG_RELAY_E_TIMEOUT { return 0 }
        try Self.check(code, operation: "syslog_relay_receive_with_timeout", udid: udid)
        return Int(received)
    }

    /// Returns on `SYSLOG_RELAY_E_SUCCESS`, else throws naming the code.
    static func check(_ code: syslog_relay_error_t, operation: String, udid: String) throws {
        guard code != SYSLOG_RELAY_E_SUCCESS else { return }
        let name =
            switch code {
            case SYSLOG_RELAY_E_INVALID_ARG: "SYSLOG_RELAY_E_INVALID_ARG"
            case SYSLOG_RELAY_E_MUX_ERROR: "SYSLOG_RELAY_E_MUX_ERROR (the connection failed)"
            case SYSLOG_RELAY_E_SSL_ERROR: "SYSLOG_RELAY_E_SSL_ERROR"
            case SYSLOG_RELAY_E_NOT_ENOUGH_DATA: "SYSLOG_RELAY_E_NOT_ENOUGH_DATA"
            case SYSLOG_RELAY_E_TIMEOUT: "SYSLOG_RELAY_E_TIMEOUT"
            default: "syslog_relay error \(code.rawValue)"
            }
        throw DeviceError.protocolError(operation: operation, udid: udid, detail: name)
    }
}
