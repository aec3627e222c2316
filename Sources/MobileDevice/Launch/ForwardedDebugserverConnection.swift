import Foundation
import LaunchBench

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// debugserver reached through a forwarder listening on 127.0.0.1 (a sidecar engine such as
/// `pymobiledevice3 developer debugserver start-server`): plain TCP carrying the same GDB remote
/// bytes as lockdown's service connection, so `LaunchRun` drives it unchanged. Request/reply commands
/// are framed here (libimobiledevice does that for the lockdown connection). Stays in ack mode.
final class ForwardedDebugserverConnection: DebugserverConnection {
    let udid: String
    let peerDescription: String
    private let socket: Int32
    /// Bytes read while waiting for a reply that belong to what comes after it.
    private var reader = GDBPacketReader()

    /// Connects to `127.0.0.1:port`.
    /// - Throws: `DeviceError.protocolError` naming `forwarder` when nothing accepts the connection.
    init(port: UInt16, udid: String, forwarder: String) throws {
        self.udid = udid
        self.peerDescription = forwarder
        #if canImport(Glibc)
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else {
            throw DeviceError.protocolError(
                operation: "connecting to \(forwarder)", udid: udid, detail: "socket(): \(String(cString: strerror(errno)))")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw DeviceError.protocolError(
                operation: "connecting to \(forwarder) on 127.0.0.1:\(port)", udid: udid, detail: reason)
        }
        var yes: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
        self.socket = fd
    }

    deinit { close(socket) }

    func sendCommand(_ name: String, argument: String?, timeout: Duration) throws -> String {
        try send(packet: name + (argument ?? ""))
        return try reply(to: name, timeout: timeout)
    }

    func setEnvironment(_ assignment: String) throws -> String {
        let hex = String(decoding: GDBRemote.hex(Array(assignment.utf8)), as: UTF8.self)
        return try sendCommand("QEnvironmentHexEncoded:", argument: hex, timeout: .seconds(10))
    }

    /// `A<hex length>,<index>,<hex argument>,…` (the length is in decimal, as libimobiledevice writes it).
    func setArguments(_ arguments: [String], timeout: Duration) throws -> String {
        let fields = arguments.enumerated().map { index, argument in
            let hex = String(decoding: GDBRemote.hex(Array(argument.utf8)), as: UTF8.self)
            return "\(hex.utf8.count),\(index),\(hex)"
        }
        try send(packet: "A" + fields.joined(separator: ","))
        return try reply(to: "A", timeout: timeout)
    }

    func send(packet payload: String) throws {
        try write(GDBRemote.frame(payload))
    }

    func acknowledge() throws {
        try write(Array("+".utf8))
    }

    func read(timeoutMilliseconds: UInt32) -> DebugserverRead {
        let pending = reader.drain()
        if !pending.isEmpty { return .bytes(pending) }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(clamping: max(1, timeoutMilliseconds)))
        if ready == 0 || (ready < 0 && errno == EINTR) { return .idle }
        guard ready > 0 else { return .closed("poll: \(String(cString: strerror(errno)))") }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if count > 0 { return .bytes(Array(buffer.prefix(count))) }
        if count < 0, errno == EINTR || errno == EAGAIN { return .idle }
        return .closed(count == 0 ? "connection closed" : "recv: \(String(cString: strerror(errno)))")
    }

    /// Waits for the reply packet to a command, acknowledging it.
    private func reply(to name: String, timeout: Duration) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let payload = reader.next() {
                try acknowledge()
                return String(decoding: payload, as: UTF8.self)
            }
            guard ContinuousClock.now < deadline else {
                throw DeviceError.timedOut(
                    operation: "debugserver reply to \(name) through \(peerDescription)", udid: udid,
                    seconds: Double(timeout.components.seconds))
            }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else {
                throw DeviceError.protocolError(
                    operation: "debugserver \(name)", udid: udid,
                    detail: "\(peerDescription) closed the connection before replying (is debugserver reachable "
                        + "on the device? its log says more)")
            }
            reader.append(buffer.prefix(count))
        }
    }

    private func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { systemSend(socket, $0.baseAddress, $0.count, Self.noSignal) }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else {
                throw DeviceError.protocolError(
                    operation: "sending to \(peerDescription)", udid: udid, detail: String(cString: strerror(errno)))
            }
            offset += sent
        }
    }

    #if canImport(Glibc)
    private static let noSignal = Int32(MSG_NOSIGNAL)
    #else
    private static let noSignal: Int32 = 0  // Darwin: SO_NOSIGPIPE is set on the socket instead
    #endif
}

/// The C `send`, which the `send(packet:)` method hides inside the class.
private func systemSend(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
    #if canImport(Glibc)
    Glibc.send(fd, bytes, count, flags)
    #else
    Darwin.send(fd, bytes, count, flags)
    #endif
}
