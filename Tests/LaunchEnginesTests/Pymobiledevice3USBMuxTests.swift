import Foundation
import LaunchBench
import Testing

@testable import LaunchEngines

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct Pymobiledevice3USBMuxTests {
    @Test func aUnixSocketIsTheBarePathInBothVariables() throws {
        let environment = try Pymobiledevice3USBMux.environment(for: .unix(path: "/tmp/lab/usbmuxd.sock"))
        #expect(
            environment == [
                "USBMUXD_SOCKET_ADDRESS": "/tmp/lab/usbmuxd.sock", "PYMOBILEDEVICE3_USBMUX": "/tmp/lab/usbmuxd.sock",
            ])
    }

    @Test func aTCPAddressIsHostColonPort() throws {
        let environment = try Pymobiledevice3USBMux.environment(for: .tcp(host: "lab-mini-1", port: 27015))
        #expect(environment["USBMUXD_SOCKET_ADDRESS"] == "lab-mini-1:27015")
        #expect(environment["PYMOBILEDEVICE3_USBMUX"] == "lab-mini-1:27015")
    }

    @Test func theSystemDaemonNeedsNothing() throws {
        #expect(try Pymobiledevice3USBMux.environment(for: nil).isEmpty)
    }

    @Test func whatPymobiledevice3CannotParseIsRefusedWithAdvice() {
        #expect(throws: Pymobiledevice3USBMux.Unsupported.self) {
            try Pymobiledevice3USBMux.environment(for: .tcp(host: "::1", port: 27015))
        }
        do {
            _ = try Pymobiledevice3USBMux.environment(for: .unix(path: "/tmp/a:b/usbmuxd.sock"))
            Issue.record("a path with ':' was accepted")
        } catch {
            #expect(error.description.contains("socat TCP-LISTEN"))
        }
    }
}

@Suite struct LocalPortTests {
    /// A listener of this process is found however many sockets the machine has open: /proc/net/tcp is read to
    /// its end (a read sized by procfs's reported 0 stopped after the first page).
    @Test func aListenerIsFoundBehindManyOpenSockets() throws {
        // Enough other listeners to push /proc/net/tcp past a page (about 27 lines of 150 bytes).
        var others: [Int32] = []
        defer { for fd in others { close(fd) } }
        for _ in 0..<60 { if let fd = LocalPortTests.listen(port: 0) { others.append(fd) } }
        let (fd, port) = try #require(LocalPortTests.listenOnFreePort())
        defer { close(fd) }
        #expect(LocalPort.isListening(port, by: getpid()) == true)
    }

    static func listenOnFreePort() -> (Int32, UInt16)? {
        guard let fd = listen(port: 0) else { return nil }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    static func listen(port: UInt16) -> Int32? {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #if canImport(Glibc)
            let listening = Glibc.listen(fd, 4)
        #else
            let listening = Darwin.listen(fd, 4)
        #endif
        guard bound == 0, listening == 0 else {
            close(fd)
            return nil
        }
        return fd
    }
}
