import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Loopback TCP ports: a free one for a sidecar to listen on, and whether something listens there now.
enum LocalPort {
    /// Where sidecar ports are picked: below the ephemeral ranges (Linux 32768+, macOS 49152+), so that no
    /// `bind(port 0)` or outgoing connection elsewhere takes the port while the sidecar is still starting.
    static let sidecarRange: ClosedRange<UInt16> = 20000...29999

    /// A port in `sidecarRange` that is free on 127.0.0.1 now.
    static func free() -> UInt16? {
        for _ in 0..<200 {
            let port = UInt16.random(in: sidecarRange)
            let fd = makeSocket()
            guard fd >= 0 else { return nil }
            let bound = bind(fd, port: port)
            close(fd)
            if bound == 0 { return port }
        }
        return nil
    }

    /// Whether process `pid` listens on `port` (Linux: a LISTEN socket in /proc/net/tcp whose inode is one
    /// of the process's descriptors). `nil` where /proc is not there (then `isListening` has to do).
    static func isListening(_ port: UInt16, by pid: Int32) -> Bool? {
        guard let ipv4 = procFile("/proc/net/tcp") else { return nil }
        let table = ipv4 + "\n" + (procFile("/proc/net/tcp6") ?? "")
        let hexPort = String(format: "%04X", port)
        var inodes: Set<String> = []
        for line in table.split(separator: "\n") where !line.hasPrefix("  sl") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 9, fields[1].hasSuffix(":" + hexPort), fields[3] == "0A" else { continue }
            inodes.insert(String(fields[9]))
        }
        guard !inodes.isEmpty else { return false }
        // The program itself, or a child of it (a wrapper script that did not `exec`).
        return ([pid] + children(of: pid)).contains { process in
            let folder = "/proc/\(process)/fd"
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            return descriptors.contains { descriptor in
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + descriptor)
                else { return false }
                return target.hasPrefix("socket:[") && inodes.contains(String(target.dropFirst(8).dropLast()))
            }
        }
    }

    /// A /proc file read to its end. procfs reports a size of 0, and a read sized by it stops after the first
    /// page: with many sockets open (a loaded test run) the sidecar's LISTEN line was past it, and a sidecar that
    /// listened was taken for one that never did.
    private static func procFile(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The processes whose parent is `pid` (from /proc/<pid>/stat's fourth field).
    private static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let child = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid ? child : nil
        }
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
