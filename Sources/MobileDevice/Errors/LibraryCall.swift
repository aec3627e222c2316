/// One failed libimobiledevice call: which library, the raw code it returned, the library's
/// text for that code, and the operation that was under way.
package struct LibraryCall: Sendable, Hashable, CustomStringConvertible {
    /// The C error enum the code belongs to.
    package enum Library: String, Sendable, Hashable {
        case idevice
        case lockdownd
        case installationProxy = "installation_proxy"
        case afc
        case debugserver
        case diagnosticsRelay = "diagnostics_relay"
    }

    package var library: Library
    /// The raw C code, e.g. `-17` for `LOCKDOWN_E_PASSWORD_PROTECTED`.
    package var code: Int32
    /// What the code means, e.g. `Password protected`.
    package var text: String
    /// The call or step that failed, e.g. `lockdownd_client_new_with_handshake`.
    package var operation: String

    /// `lockdownd_client_new_with_handshake: Password protected (lockdownd error -17)`.
    package var description: String { "\(operation): \(text) (\(library.rawValue) error \(code))" }
}
