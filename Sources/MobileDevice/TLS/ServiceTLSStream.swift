internal import CIMobileDevice
import Foundation
import LaunchBench

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// TLS on a service connection's socket, driven by us: OpenSSL works on memory buffers and we move the
/// bytes, so every wait has our deadline (no sleeping retry loop, no watchdog), reads take whole records
/// instead of libimobiledevice's one byte per call, and a write to a peer that has gone is an error, not
/// a SIGPIPE. The socket stays libimobiledevice's (`idevice_disconnect` closes it); `close()` comes first.
/// Not Sendable: used on the owning device's queue.
final class ServiceTLSStream {
    let udid: String
    let peerDescription: String
    private let socket: Int32
    private let context: ServiceTLSContext
    private let connection: OpaquePointer
    /// What OpenSSL reads from (we fill it from the socket) and writes to (we send it).
    private let incoming: OpaquePointer
    private let outgoing: OpaquePointer
    private var peerClosed = false
    private var scratch = [UInt8](repeating: 0, count: 16 * 1024)

    /// Runs the client handshake on `socket` (a connected, non-blocking descriptor).
    /// - Throws: `DeviceError.timedOut` when the device has not finished it within `timeout`,
    ///   `.protocolError` when it fails or the device closes the connection.
    init(socket: Int32, context: ServiceTLSContext, udid: String, peer: String, timeout: Duration) throws {
        guard let connection = SSL_new(context.context), let incoming = BIO_new(BIO_s_mem()),
            let outgoing = BIO_new(BIO_s_mem())
        else {
            throw DeviceError.protocolError(operation: "SSL_new", udid: udid, detail: ServiceTLSError.latest())
        }
        // An empty input buffer means "wait for more", not end of stream.
        BIO_ctrl(incoming, BIO_C_SET_BUF_MEM_EOF_RETURN, -1, nil)
        SSL_set_bio(connection, incoming, outgoing)
        SSL_set_connect_state(connection)
        if let session = context.session { SSL_set_session(connection, session) }
        self.socket = socket
        self.context = context
        self.connection = connection
        self.incoming = incoming
        self.outgoing = outgoing
        self.udid = udid
        self.peerDescription = peer
        try handshake(deadline: .now + timeout, timeout: timeout)
    }

    deinit { SSL_free(connection) }

    /// Whether the handshake resumed the previous connection's session (no certificate, no RSA signature).
    var resumedSession: Bool { SSL_session_reused(connection) == 1 }

    /// Sends close_notify if the device is still there, and keeps the session for the next connection.
    func close() {
        context.remember(sessionOf: connection)
        guard !peerClosed else { return }
        SSL_shutdown(connection)
        try? flush(until: .now + .milliseconds(100))
    }

    func write(_ bytes: [UInt8]) throws {
        let written = bytes.withUnsafeBytes { SSL_write(connection, $0.baseAddress, Int32($0.count)) }
        guard written == bytes.count else {
            throw DeviceError.protocolError(
                operation: "sending to \(peerDescription)", udid: udid, detail: ServiceTLSError.latest())
        }
        try flush(until: .now + .seconds(10))
    }

    /// What arrives within `timeoutMilliseconds`: decrypted bytes, nothing, or the end of the connection.
    func read(timeoutMilliseconds: UInt32) -> DebugserverRead {
        let deadline = ContinuousClock.now + .milliseconds(Int(max(1, timeoutMilliseconds)))
        while true {
            let count = scratch.withUnsafeMutableBytes { SSL_read(connection, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                try? flush(until: .now + .seconds(1))  // a key update's answer, if any
                return .bytes(Array(scratch.prefix(Int(count))))
            }
            switch SSL_get_error(connection, count) {
            case SSL_ERROR_WANT_READ:
                switch receive(until: deadline) {
                case .bytes: continue
                case .idle: return .idle
                case .closed(let reason): return .closed(reason)
                }
            case SSL_ERROR_ZERO_RETURN:
                peerClosed = true
                return .closed("\(peerDescription) ended TLS (close_notify)")
            default:
                peerClosed = true
                return .closed("TLS read: \(ServiceTLSError.latest())")
            }
        }
    }

    private func handshake(deadline: ContinuousClock.Instant, timeout: Duration) throws {
        while true {
            let result = SSL_do_handshake(connection)
            try flush(until: deadline)
            if result == 1 { return }
            guard SSL_get_error(connection, result) == SSL_ERROR_WANT_READ else {
                throw DeviceError.protocolError(
                    operation: "TLS handshake with \(peerDescription)", udid: udid, detail: ServiceTLSError.latest())
            }
            switch receive(until: deadline) {
            case .bytes: continue
            case .idle:
                throw DeviceError.timedOut(
                    operation: "TLS handshake with \(peerDescription)", udid: udid, seconds: timeout.totalSeconds)
            case .closed(let reason):
                throw DeviceError.protocolError(
                    operation: "TLS handshake with \(peerDescription)", udid: udid, detail: reason)
            }
        }
    }

    /// Moves what arrives on the socket before `deadline` into OpenSSL's input.
    private func receive(until deadline: ContinuousClock.Instant) -> DebugserverRead {
        guard wait(for: Int16(POLLIN), until: deadline) else { return .idle }
        let count = scratch.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            scratch.withUnsafeBytes { _ = BIO_write(incoming, $0.baseAddress, Int32(count)) }
            return .bytes([])
        }
        if count < 0, errno == EINTR || errno == EAGAIN { return .idle }
        peerClosed = true
        return .closed(
            count == 0 ? "\(peerDescription) closed the connection" : "recv: \(String(cString: strerror(errno)))")
    }

    /// Sends everything OpenSSL has produced, waiting for room until `deadline`.
    private func flush(until deadline: ContinuousClock.Instant) throws {
        while BIO_ctrl_pending(outgoing) > 0 {
            let count = scratch.withUnsafeMutableBytes { BIO_read(outgoing, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else { return }
            var offset = 0
            while offset < Int(count) {
                let sent = scratch[offset..<Int(count)].withUnsafeBytes {
                    send(socket, $0.baseAddress, $0.count, Self.noSignal)
                }
                if sent > 0 {
                    offset += sent
                } else if sent < 0, errno == EINTR || errno == EAGAIN, wait(for: Int16(POLLOUT), until: deadline) {
                    continue
                } else {
                    peerClosed = true
                    throw DeviceError.protocolError(
                        operation: "sending to \(peerDescription)", udid: udid,
                        detail: sent < 0 ? String(cString: strerror(errno)) : "nothing was sent")
                }
            }
        }
    }

    /// Waits until the socket is ready for `events`; `false` at the deadline.
    private func wait(for events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = deadline - .now
            guard left > .zero else { return false }
            var descriptor = pollfd(fd: socket, events: events, revents: 0)
            let milliseconds = Int32(
                clamping: max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return true }  // let the read or send report the error
        }
    }

    #if canImport(Glibc)
        private static let noSignal = Int32(MSG_NOSIGNAL)
    #else
        private static let noSignal: Int32 = 0  // Darwin: SO_NOSIGPIPE is set on the socket instead
    #endif
}
