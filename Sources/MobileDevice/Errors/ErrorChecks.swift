internal import CIMobileDevice

// One `check(_:operation:)` per C error enum: returns on `*_E_SUCCESS`, otherwise throws the
// mapped `DeviceError` keeping the raw code, the library's text and the operation.

func check(_ code: idevice_error_t, operation: String, udid: String?) throws {
    guard code != IDEVICE_E_SUCCESS else { return }
    throw DeviceError.mapped(idevice: code.rawValue, operation: operation, udid: udid)
}

func check(_ code: lockdownd_error_t, operation: String, udid: String, service: String? = nil) throws {
    guard code != LOCKDOWN_E_SUCCESS else { return }
    throw DeviceError.mapped(lockdown: code.rawValue, operation: operation, udid: udid, service: service)
}

func check(_ code: instproxy_error_t, operation: String, udid: String) throws {
    guard code != INSTPROXY_E_SUCCESS else { return }
    throw DeviceError.failed(udid: udid, call: LibraryCall.instproxy(code.rawValue, operation: operation))
}

func check(_ code: afc_error_t, operation: String, udid: String, path: String) throws {
    guard code != AFC_E_SUCCESS else { return }
    throw DeviceError.mapped(afc: code.rawValue, operation: operation, udid: udid, path: path)
}

func check(_ code: debugserver_error_t, operation: String, udid: String) throws {
    guard code != DEBUGSERVER_E_SUCCESS else { return }
    throw DeviceError.failed(udid: udid, call: LibraryCall.debugserver(code.rawValue, operation: operation))
}

func check(_ code: diagnostics_relay_error_t, operation: String, udid: String) throws {
    guard code != DIAGNOSTICS_RELAY_E_SUCCESS else { return }
    throw DeviceError.failed(udid: udid, call: LibraryCall.diagnosticsRelay(code.rawValue, operation: operation))
}

extension LibraryCall {
    static func idevice(_ code: Int32, operation: String) -> LibraryCall {
        LibraryCall(
            library: .idevice, code: code, text: ErrorTexts.idevice[code] ?? "Error \(code)", operation: operation)
    }

    static func lockdown(_ code: Int32, operation: String) -> LibraryCall {
        let text = lockdownd_strerror(lockdownd_error_t(rawValue: code)).map { String(cString: $0) } ?? "Error \(code)"
        return LibraryCall(library: .lockdownd, code: code, text: text, operation: operation)
    }

    static func instproxy(_ code: Int32, operation: String) -> LibraryCall {
        LibraryCall(
            library: .installationProxy, code: code,
            text: ErrorTexts.installationProxy[code] ?? "installd error \(code)", operation: operation)
    }

    static func afc(_ code: Int32, operation: String) -> LibraryCall {
        LibraryCall(library: .afc, code: code, text: ErrorTexts.afc[code] ?? "AFC error \(code)", operation: operation)
    }

    static func debugserver(_ code: Int32, operation: String) -> LibraryCall {
        LibraryCall(
            library: .debugserver, code: code, text: ErrorTexts.debugserver[code] ?? "Error \(code)",
            operation: operation)
    }

    static func diagnosticsRelay(_ code: Int32, operation: String) -> LibraryCall {
        LibraryCall(
            library: .diagnosticsRelay, code: code, text: ErrorTexts.diagnosticsRelay[code] ?? "Error \(code)",
            operation: operation)
    }

    /// Whether the code says the connection to the device broke (so the device may be gone).
    var isConnectionFailure: Bool {
        switch library {
        case .idevice:
            return [IDEVICE_E_UNKNOWN_ERROR, IDEVICE_E_NO_DEVICE, IDEVICE_E_NOT_ENOUGH_DATA, IDEVICE_E_SSL_ERROR]
                .map(\.rawValue).contains(code)
        case .lockdownd:
            return [
                LOCKDOWN_E_PLIST_ERROR, LOCKDOWN_E_SSL_ERROR, LOCKDOWN_E_RECEIVE_TIMEOUT, LOCKDOWN_E_MUX_ERROR,
                LOCKDOWN_E_UNKNOWN_ERROR,
            ].map(\.rawValue).contains(code)
        case .installationProxy:
            return [INSTPROXY_E_CONN_FAILED, INSTPROXY_E_RECEIVE_TIMEOUT, INSTPROXY_E_UNKNOWN_ERROR]
                .map(\.rawValue).contains(code)
        case .afc:
            return [AFC_E_SERVICE_NOT_CONNECTED, AFC_E_MUX_ERROR, AFC_E_NOT_ENOUGH_DATA].map(\.rawValue).contains(code)
        case .debugserver:
            return [DEBUGSERVER_E_MUX_ERROR, DEBUGSERVER_E_SSL_ERROR, DEBUGSERVER_E_UNKNOWN_ERROR]
                .map(\.rawValue).contains(code)
        case .diagnosticsRelay:
            return [DIAGNOSTICS_RELAY_E_MUX_ERROR, DIAGNOSTICS_RELAY_E_UNKNOWN_ERROR].map(\.rawValue).contains(code)
        }
    }
}

extension DeviceError {
    /// Maps an `idevice_error_t` (as its raw value).
    static func mapped(idevice code: Int32, operation: String, udid: String?) -> DeviceError {
        .failed(udid: udid, call: .idevice(code, operation: operation))
    }

    /// Maps a `lockdownd_error_t` (as its raw value); `service` names the service being started, if any.
    static func mapped(lockdown code: Int32, operation: String, udid: String, service: String?) -> DeviceError {
        let call = LibraryCall.lockdown(code, operation: operation)
        switch lockdownd_error_t(rawValue: code) {
        case LOCKDOWN_E_PASSWORD_PROTECTED, LOCKDOWN_E_ESCROW_LOCKED:
            return .passcodeLocked(udid: udid, call: call)
        case LOCKDOWN_E_INVALID_HOST_ID, LOCKDOWN_E_MISSING_HOST_ID, LOCKDOWN_E_MISSING_PAIR_RECORD,
            LOCKDOWN_E_INVALID_PAIR_RECORD, LOCKDOWN_E_PAIRING_FAILED, LOCKDOWN_E_USER_DENIED_PAIRING,
            LOCKDOWN_E_PAIRING_DIALOG_RESPONSE_PENDING, LOCKDOWN_E_INVALID_CONF,
            LOCKDOWN_E_PAIRING_PROHIBITED_OVER_THIS_CONNECTION:
            return .notTrusted(udid: udid, call: call)
        case LOCKDOWN_E_INVALID_SERVICE, LOCKDOWN_E_MISSING_SERVICE, LOCKDOWN_E_SERVICE_PROHIBITED,
            LOCKDOWN_E_SERVICE_LIMIT:
            return .serviceUnavailable(service: service ?? "a service", udid: udid, call: call)
        default:
            return .failed(udid: udid, call: call)
        }
    }

    /// Maps an `afc_error_t` met while copying `path`.
    static func mapped(afc code: Int32, operation: String, udid: String, path: String) -> DeviceError {
        .uploadFailed(path: path, udid: udid, call: .afc(code, operation: operation))
    }
}
