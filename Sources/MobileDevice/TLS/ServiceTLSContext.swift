internal import CIMobileDevice
import Foundation
import LaunchBench

/// One device's TLS client settings for service connections, made once per device session: what
/// libimobiledevice 1.3.0 sets up anew for every connection (PROTOCOLS §4.1) — it re-reads the pair record
/// from usbmuxd and parses its certificate and RSA key each time, ~3 ms of every launch on iOS 14–16.
/// Also keeps the last connection's TLS session, so the next handshake can resume it when the device
/// offers tickets (a full handshake otherwise, as before).
/// Not Sendable: lives on the owning `DeviceSession` actor.
final class ServiceTLSContext {
    let context: OpaquePointer
    private var resumable: OpaquePointer?

    /// Reads `udid`'s pair record from usbmuxd and builds the context from it.
    /// - Throws: `DeviceError.protocolError` when usbmuxd has no record (the phone is not paired with this
    ///   host) or OpenSSL refuses the record's certificate or key.
    init(udid: String) throws {
        let record = try Self.pairRecord(udid: udid)
        guard let context = SSL_CTX_new(TLS_method()) else {
            throw DeviceError.protocolError(operation: "SSL_CTX_new", udid: udid, detail: ServiceTLSError.latest())
        }
        self.context = context
        // As the library: security level 0, TLS 1.0 and up, the device's certificate not checked, and the
        // record's root certificate as ours (sent only if the device asks for one).
        SSL_CTX_set_security_level(context, 0)
        SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_VERSION), nil)
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        if let certificate = record["RootCertificate"], case .data(let pem) = certificate {
            try use(pem, udid: udid, what: "RootCertificate") { bio in
                guard let x509 = PEM_read_bio_X509(bio, nil, nil, nil) else { return 0 }
                defer { X509_free(x509) }
                return SSL_CTX_use_certificate(context, x509)
            }
        }
        if let key = record["RootPrivateKey"], case .data(let pem) = key {
            try use(pem, udid: udid, what: "RootPrivateKey") { bio in
                guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else { return 0 }
                defer { EVP_PKEY_free(key) }
                return SSL_CTX_use_PrivateKey(context, key)
            }
        }
    }

    deinit {
        if let resumable { SSL_SESSION_free(resumable) }
        SSL_CTX_free(context)
    }

    /// The session a new connection offers to resume, if any.
    var session: OpaquePointer? { resumable }

    /// Keeps `connection`'s session for the next handshake when the device made it resumable.
    func remember(sessionOf connection: OpaquePointer) {
        guard let session = SSL_get1_session(connection) else { return }
        guard SSL_SESSION_is_resumable(session) == 1 else {
            SSL_SESSION_free(session)
            return
        }
        if let resumable { SSL_SESSION_free(resumable) }
        resumable = session
    }

    private func use(_ pem: [UInt8], udid: String, what: String, _ body: (OpaquePointer) -> Int32) throws {
        let loaded = pem.withUnsafeBytes { buffer -> Int32 in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return 0 }
            defer { BIO_free(bio) }
            return body(bio)
        }
        guard loaded == 1 else {
            throw DeviceError.protocolError(
                operation: "loading the pair record's \(what)", udid: udid, detail: ServiceTLSError.latest())
        }
    }

    /// The pair record as usbmuxd hands it out (binary or XML plist).
    private static func pairRecord(udid: String) throws -> PropertyListValue {
        var data: UnsafeMutablePointer<CChar>?
        var size: UInt32 = 0
        let code = usbmuxd_read_pair_record(udid, &data, &size)
        defer { free(data) }
        guard code == 0, let data else {
            throw DeviceError.protocolError(
                operation: "usbmuxd_read_pair_record", udid: udid,
                detail: "usbmuxd gave no pair record (error \(code)); pair the phone with this host (trust it)")
        }
        var node: plist_t?
        plist_from_memory(data, size, &node)
        guard let record = PlistNode(owning: node)?.value, record.dictionaryValue != nil else {
            throw DeviceError.protocolError(
                operation: "usbmuxd_read_pair_record", udid: udid, detail: "the pair record is not a property list")
        }
        return record
    }
}

/// OpenSSL's error queue, as text for error messages.
enum ServiceTLSError {
    /// The oldest queued error (the queue is cleared), or a generic text when there is none.
    static func latest() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "no OpenSSL error queued" }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
