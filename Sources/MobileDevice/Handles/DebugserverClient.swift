internal import CIMobileDevice
import Foundation

/// Owns a `debugserver_client_t` and frees it in `deinit` (closing the connection, after which a
/// real debugserver kills an app it launched and did not detach from).
/// Not Sendable: lives on the owning `DeviceSession` actor.
final class DebugserverClient: DebugserverConnection {
    /// The Debian build of libimobiledevice 1.3.0 tries the secure name first (iOS 14+), then the plain one.
    static let services = ["com.apple.debugserver.DVTSecureSocketProxy", "com.apple.debugserver"]

    let udid: String
    let peerDescription = "debugserver"
    /// TLS on the connection: reads must then be byte by byte (a larger TLS read waits for all bytes or drops them).
    let usesTLS: Bool
    private let handle: debugserver_client_t

    init(device: DeviceHandle, service: ServiceDescriptor) throws {
        var client: debugserver_client_t?
        let code = device.withHandle { device in
            service.withHandle { service in debugserver_client_new(device, service, &client) }
        }
        if code != DEBUGSERVER_E_SUCCESS, let client { debugserver_client_free(client) }
        try check(code, operation: "debugserver_client_new", udid: device.udid)
        guard let client else {
            throw DeviceError.protocolError(operation: "debugserver_client_new", udid: device.udid, detail: "no client")
        }
        self.udid = device.udid
        self.usesTLS = service.usesTLS
        self.handle = client
    }

    deinit { debugserver_client_free(handle) }

    // MARK: Request/reply commands (before `c`), through the library's own helpers

    /// Sends a command and returns its reply, waiting up to `timeout` (the library gives up after
    /// 1 s of silence per try, so it is asked again until the deadline).
    func sendCommand(_ name: String, argument: String?, timeout: Duration) throws -> String {
        var command: debugserver_command_t?
        if let argument {
            try argument.withCString { argument in
                var argv: [UnsafeMutablePointer<CChar>?] = [UnsafeMutablePointer(mutating: argument), nil]
                try check(
                    debugserver_command_new(name, 1, &argv, &command), operation: "debugserver_command_new", udid: udid)
            }
        } else {
            try check(debugserver_command_new(name, 0, nil, &command), operation: "debugserver_command_new", udid: udid)
        }
        defer { debugserver_command_free(command) }
        var response: UnsafeMutablePointer<CChar>?
        var size = 0
        try check(
            debugserver_client_send_command(handle, command, &response, &size),
            operation: "debugserver \(name)", udid: udid)
        return try reply(response, to: name, timeout: timeout)
    }

    /// `QEnvironmentHexEncoded:` for one `NAME=VALUE` (any bytes but NUL survive the hex encoding).
    func setEnvironment(_ assignment: String) throws -> String {
        var response: UnsafeMutablePointer<CChar>?
        try check(
            debugserver_client_set_environment_hex_encoded(handle, assignment, &response),
            operation: "debugserver QEnvironmentHexEncoded", udid: udid)
        return try reply(response, to: "QEnvironmentHexEncoded", timeout: .seconds(10))
    }

    /// The `A` packet: argv[0] is the executable's path on the device.
    func setArguments(_ arguments: [String], timeout: Duration) throws -> String {
        var response: UnsafeMutablePointer<CChar>?
        var argv = arguments.map { strdup($0) }
        defer { argv.forEach { free($0) } }
        try check(
            debugserver_client_set_argv(handle, Int32(argv.count), &argv, &response),
            operation: "debugserver A (set argv)", udid: udid)
        return try reply(response, to: "A", timeout: timeout)
    }

    private func reply(_ first: UnsafeMutablePointer<CChar>?, to name: String, timeout: Duration) throws -> String {
        var response = first
        let deadline = ContinuousClock.now + timeout
        while response == nil {
            guard ContinuousClock.now < deadline else {
                throw DeviceError.timedOut(
                    operation: "debugserver reply to \(name)", udid: udid, seconds: Double(timeout.components.seconds))
            }
            var size = 0
            try check(
                debugserver_client_receive_response(handle, &response, &size),
                operation: "debugserver reply to \(name)", udid: udid)
        }
        defer { free(response) }
        return String(cString: response!)
    }

    // MARK: Raw stream (the run loop after `c`)

    /// Sends one framed packet as is.
    func send(packet payload: String) throws {
        try sendRaw(GDBRemote.frame(payload))
    }

    /// Acknowledges a received packet. The session stays in ack mode (as idevicedebug does), and
    /// debugserver waits for this `+` before it sends the next packet.
    func acknowledge() throws {
        try sendRaw(Array("+".utf8))
    }

    private func sendRaw(_ bytes: [UInt8]) throws {
        var sent: UInt32 = 0
        let code = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                debugserver_client_send(handle, $0.baseAddress, UInt32($0.count), &sent)
            }
        }
        try check(code, operation: "debugserver_client_send", udid: udid)
    }

    /// Reads what arrived within `timeoutMilliseconds` (must be > 0: 0 would block forever).
    func read(timeoutMilliseconds: UInt32) -> DebugserverRead {
        var buffer = [CChar](repeating: 0, count: usesTLS ? 1 : 4096)
        var received: UInt32 = 0
        let code = buffer.withUnsafeMutableBufferPointer { buffer in
            debugserver_client_receive_with_timeout(
                handle, buffer.baseAddress, UInt32(buffer.count), &received, max(1, timeoutMilliseconds))
        }
        if code == DEBUGSERVER_E_SUCCESS, received > 0 {
            return .bytes(buffer.prefix(Int(received)).map { UInt8(bitPattern: $0) })
        }
        if code == DEBUGSERVER_E_TIMEOUT || code == DEBUGSERVER_E_SUCCESS { return .idle }
        return .closed(
            LibraryCall.debugserver(code.rawValue, operation: "debugserver_client_receive_with_timeout").description)
    }
}
