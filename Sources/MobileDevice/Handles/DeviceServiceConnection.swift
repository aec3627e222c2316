internal import CIMobileDevice
import Dispatch
import Foundation
import LaunchBench

/// A connection to a service that lockdown started (`idevice_connect` to its port), carrying bytes we
/// frame ourselves; TLS when lockdown says `EnableServiceSSL`. Owns the `idevice_connection_t` and
/// disconnects in `deinit` (over TLS: close_notify, then close — after which a real debugserver kills an
/// app it launched and did not detach from).
/// Not Sendable: lives on the owning `DeviceSession` actor.
final class DeviceServiceConnection {
    let udid: String
    let peerDescription: String
    /// TLS on the connection: reads are then byte by byte, because libimobiledevice's TLS read waits for
    /// the whole count and drops what it got when the timeout ends first.
    let usesTLS: Bool
    private let handle: idevice_connection_t

    /// Connects to `service`'s port; over TLS, also does the handshake, failing after `handshakeTimeout`.
    /// - Throws: the mapped `DeviceError` of `idevice_connect` or of the handshake, or `.timedOut`.
    init(device: DeviceHandle, service: ServiceDescriptor, name: String, handshakeTimeout: Duration) throws {
        var connection: idevice_connection_t?
        let code = device.withHandle { idevice_connect($0, service.port, &connection) }
        if code != IDEVICE_E_SUCCESS, let connection { idevice_disconnect(connection) }
        try check(code, operation: "idevice_connect (\(name))", udid: device.udid)
        guard let connection else {
            throw DeviceError.protocolError(
                operation: "idevice_connect (\(name))", udid: device.udid, detail: "no connection")
        }
        self.udid = device.udid
        self.peerDescription = name
        self.usesTLS = service.usesTLS
        self.handle = connection
        if usesTLS { try startTLS(timeout: handshakeTimeout) }
    }

    deinit { idevice_disconnect(handle) }

    /// libimobiledevice's handshake sleeps 100 ms whenever the device's answer is not there yet
    /// (`SSL_ERROR_WANT_READ` on libusbmuxd's non-blocking socket, PROTOCOLS §4.1). Over USB it never is
    /// at the first try, so each launch lost ~100 ms. With the socket blocking during the handshake,
    /// OpenSSL waits for the answer itself; a watchdog shuts the socket down at the deadline, so a silent
    /// device fails the handshake instead of hanging it. Non-blocking again afterwards, as the library
    /// expects for its reads with a timeout.
    private func startTLS(timeout: Duration) throws {
        var fd: Int32 = -1
        try check(idevice_connection_get_fd(handle, &fd), operation: "idevice_connection_get_fd", udid: udid)
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)
        let watchdog = HandshakeWatchdog(socket: fd, timeout: timeout)
        let code = idevice_connection_enable_ssl(handle)
        let expired = watchdog.finish()
        _ = fcntl(fd, F_SETFL, flags)
        if expired {
            throw DeviceError.timedOut(
                operation: "TLS handshake with \(peerDescription)", udid: udid, seconds: timeout.totalSeconds)
        }
        try check(code, operation: "idevice_connection_enable_ssl (\(peerDescription))", udid: udid)
    }
}

extension DeviceServiceConnection: DebugserverTransport {
    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            var sent: UInt32 = 0
            let code = bytes[offset...].withUnsafeBytes { buffer in
                idevice_connection_send(
                    handle, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), UInt32(buffer.count), &sent)
            }
            try check(code, operation: "idevice_connection_send (\(peerDescription))", udid: udid)
            guard sent > 0 else {
                throw DeviceError.protocolError(
                    operation: "sending to \(peerDescription)", udid: udid, detail: "nothing was sent")
            }
            offset += Int(sent)
        }
    }

    func read(timeoutMilliseconds: UInt32) -> DebugserverRead {
        var buffer = [CChar](repeating: 0, count: usesTLS ? 1 : 4096)
        var received: UInt32 = 0
        let code = buffer.withUnsafeMutableBufferPointer { buffer in
            idevice_connection_receive_timeout(
                handle, buffer.baseAddress, UInt32(buffer.count), &received, max(1, timeoutMilliseconds))
        }
        if code == IDEVICE_E_SUCCESS, received > 0 {
            return .bytes(buffer.prefix(Int(received)).map { UInt8(bitPattern: $0) })
        }
        // NOT_ENOUGH_DATA is libusbmuxd's EAGAIN: nothing yet, like a timeout.
        if code == IDEVICE_E_SUCCESS || code == IDEVICE_E_TIMEOUT || code == IDEVICE_E_NOT_ENOUGH_DATA { return .idle }
        return .closed(LibraryCall.idevice(code.rawValue, operation: "idevice_connection_receive_timeout").description)
    }
}

/// Shuts a socket down if `finish()` has not been called by the deadline. The shutdown happens under
/// the lock, so it can never hit the descriptor after `finish()` returned (when it may be reused).
private final class HandshakeWatchdog: Sendable {
    private let state = Locked((finished: false, fired: false))

    init(socket: Int32, timeout: Duration) {
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.totalSeconds) { [state] in
            state.withLock { state in
                guard !state.finished else { return }
                state.fired = true
                _ = shutdown(socket, Int32(SHUT_RDWR))
            }
        }
    }

    /// Stops the watchdog; `true` when it had already fired.
    func finish() -> Bool {
        state.withLock { state in
            state.finished = true
            return state.fired
        }
    }
}
