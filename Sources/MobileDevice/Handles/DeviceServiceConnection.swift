internal import CIMobileDevice
import Foundation
import LaunchBench

/// A connection to a service that lockdown started (`idevice_connect` to its port), carrying bytes we
/// frame ourselves; TLS when lockdown says `EnableServiceSSL`, done by `ServiceTLSStream` with the device
/// session's `ServiceTLSContext`. Owns the `idevice_connection_t` and disconnects in `deinit` (over TLS:
/// close_notify first — after which a real debugserver kills an app it launched and did not detach from).
/// Not Sendable: lives on the owning `DeviceSession` actor.
final class DeviceServiceConnection {
    let udid: String
    let peerDescription: String
    private let handle: idevice_connection_t
    let tls: ServiceTLSStream?

    /// Connects to `service`'s port; over TLS, also does the handshake with `tlsContext()`, failing after
    /// `handshakeTimeout`.
    /// - Throws: the mapped `DeviceError` of `idevice_connect` or of the handshake, or `.timedOut`.
    init(
        device: DeviceHandle, service: ServiceDescriptor, name: String,
        tlsContext: () throws -> ServiceTLSContext, handshakeTimeout: Duration
    ) throws {
        var connection: idevice_connection_t?
        let code = device.withHandle { idevice_connect($0, service.port, &connection) }
        if code != IDEVICE_E_SUCCESS, let connection { idevice_disconnect(connection) }
        try check(code, operation: "idevice_connect (\(name))", udid: device.udid)
        guard let connection else {
            throw DeviceError.protocolError(
                operation: "idevice_connect (\(name))", udid: device.udid, detail: "no connection")
        }
        do {
            tls =
                service.usesTLS
                ? try Self.startTLS(
                    connection, context: tlsContext(), udid: device.udid, peer: name, timeout: handshakeTimeout) : nil
        } catch {
            idevice_disconnect(connection)
            throw error
        }
        self.udid = device.udid
        self.peerDescription = name
        self.handle = connection
    }

    deinit {
        tls?.close()
        idevice_disconnect(handle)
    }

    private static func startTLS(
        _ connection: idevice_connection_t, context: ServiceTLSContext, udid: String, peer: String, timeout: Duration
    ) throws -> ServiceTLSStream {
        var fd: Int32 = -1
        try check(idevice_connection_get_fd(connection, &fd), operation: "idevice_connection_get_fd", udid: udid)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        #if canImport(Darwin)
            var yes: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return try ServiceTLSStream(socket: fd, context: context, udid: udid, peer: peer, timeout: timeout)
    }
}

extension DeviceServiceConnection: DebugserverTransport {
    func write(_ bytes: [UInt8]) throws {
        if let tls { return try tls.write(bytes) }
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
        if let tls { return tls.read(timeoutMilliseconds: timeoutMilliseconds) }
        var buffer = [CChar](repeating: 0, count: 4096)
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
