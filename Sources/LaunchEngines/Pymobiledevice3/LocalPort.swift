import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Loopback TCP ports: a free one for a sidecar to listen on, and whether something listens there now.
enum LocalPort {
    /// A port the kernel considers free on 127.0.0.1 now (bound to port 0, then released).
    static func free() -> UInt16? {
        let fd = makeSocket()
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard bind(fd, port: 0) == 0 else { return nil }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return named == 0 ? UInt16(bigEndian: address.sin_port) : nil
    }

    /// Whether a listener holds `port` on 127.0.0.1: binding there fails with EADDRINUSE. Asked without
    /// connecting, because every connection makes the forwarder start a debugserver on the device.
    static func isListening(_ port: UInt16) -> Bool {
        let fd = makeSocket()
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return bind(fd, port: port) != 0 && errno == EADDRINUSE
    }

    private static func makeSocket() -> Int32 {
        #if canImport(Glibc)
        return socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        return socket(AF_INET, SOCK_STREAM, 0)
        #endif
    }

    private static func bind(_ fd: Int32, port: UInt16) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Glibc)
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #else
                Darwin.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #endif
            }
        }
    }
}
