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
        let texts: [Int32: String] = [
            -1: "IDEVICE_E_INVALID_ARG", -2: "IDEVICE_E_UNKNOWN_ERROR", -3: "IDEVICE_E_NO_DEVICE",
            -4: "IDEVICE_E_NOT_ENOUGH_DATA", -6: "IDEVICE_E_SSL_ERROR", -7: "IDEVICE_E_TIMEOUT",
        ]
        return LibraryCall(library: .idevice, code: code, text: texts[code] ?? "Error \(code)", operation: operation)
    }

    static func lockdown(_ code: Int32, operation: String) -> LibraryCall {
        let text = lockdownd_strerror(lockdownd_error_t(rawValue: code)).map { String(cString: $0) } ?? "Error \(code)"
        return LibraryCall(library: .lockdownd, code: code, text: text, operation: operation)
    }

    static func instproxy(_ code: Int32, operation: String) -> LibraryCall {
        let texts: [Int32: String] = [
            -1: "Invalid argument", -2: "Property list error", -3: "Connection failed", -4: "Operation in progress",
            -5: "Operation failed", -6: "Receive timeout", -256: "Unknown error",
        ]
        return LibraryCall(
            library: .installationProxy, code: code, text: texts[code] ?? "installd error \(code)", operation: operation
        )
    }

    static func afc(_ code: Int32, operation: String) -> LibraryCall {
        let texts: [Int32: String] = [
            1: "Unknown error", 2: "Invalid header", 3: "No resources", 4: "Read error", 5: "Write error",
            6: "Unknown packet type", 7: "Invalid argument", 8: "Object not found", 9: "Object is a directory",
            10: "Permission denied", 11: "Service not connected", 12: "Operation timed out", 13: "Too much data",
            14: "End of data", 15: "Operation not supported", 16: "Object exists", 17: "Object busy",
            18: "No space left on device", 19: "Operation would block", 20: "I/O error", 21: "Operation interrupted",
            22: "Operation in progress", 23: "Internal error", 30: "usbmuxd connection error", 31: "Out of memory",
            32: "Not enough data", 33: "Directory not empty",
        ]
        return LibraryCall(library: .afc, code: code, text: texts[code] ?? "AFC error \(code)", operation: operation)
    }

    static func debugserver(_ code: Int32, operation: String) -> LibraryCall {
        let texts: [Int32: String] = [
            -1: "Invalid argument", -2: "usbmuxd connection error", -3: "SSL error", -4: "Response error",
            -5: "Timeout", -256: "Unknown error",
        ]
        return LibraryCall(
            library: .debugserver, code: code, text: texts[code] ?? "Error \(code)", operation: operation)
    }

    static func diagnosticsRelay(_ code: Int32, operation: String) -> LibraryCall {
        let texts: [Int32: String] = [
            -1: "Invalid argument", -2: "Property list error", -3: "usbmuxd connection error", -4: "Unknown request",
            -256: "Unknown error",
        ]
        return LibraryCall(
            library: .diagnosticsRelay, code: code, text: texts[code] ?? "Error \(code)", operation: operation)
    }

    /// Whether the code says the connection to the device broke (so the device may be gone).
    var isConnectionFailure: Bool {
        switch library {
        case .idevice: return [-2, -3, -4, -6].contains(code)
        case .lockdownd: return [-3, -5, -7, -8, -256].contains(code)
        case .installationProxy: return [-3, -6, -256].contains(code)
        case .afc: return [11, 30, 32].contains(code)
        case .debugserver: return [-2, -3, -256].contains(code)
        case .diagnosticsRelay: return [-3, -256].contains(code)
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
