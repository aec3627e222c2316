import Foundation
import LaunchBench

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// debugserver reached through a forwarder listening on 127.0.0.1 (a sidecar engine such as
/// `pymobiledevice3 developer debugserver start-server`): plain TCP carrying the same GDB remote
/// bytes as lockdown's service connection.
final class LoopbackTCPTransport: DebugserverTransport {
    let udid: String
    let peerDescription: String
    private let socket: Int32

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
                operation: "connecting to \(forwarder)", udid: udid,
                detail: "socket(): \(String(cString: strerror(errno)))")
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

    func read(timeoutMilliseconds: UInt32) -> DebugserverRead {
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

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send($0.baseAddress, $0.count, Self.noSignal) }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else {
                throw DeviceError.protocolError(
                    operation: "sending to \(peerDescription)", udid: udid, detail: String(cString: strerror(errno)))
            }
            offset += sent
        }
    }

    private func send(_ bytes: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
        #if canImport(Glibc)
            Glibc.send(socket, bytes, count, flags)
        #else
            Darwin.send(socket, bytes, count, flags)
        #endif
    }

    #if canImport(Glibc)
        private static let noSignal = Int32(MSG_NOSIGNAL)
    #else
        private static let noSignal: Int32 = 0  // Darwin: SO_NOSIGPIPE is set on the socket instead
    #endif
}
