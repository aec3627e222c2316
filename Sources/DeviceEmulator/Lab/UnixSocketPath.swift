import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Checks made before binding a unix socket, so that failures name the path and the fix.
package enum UnixSocketPath {
    /// `sun_path` holds 104 bytes on macOS (108 on Linux) including the terminating NUL.
    static let maximumLength = 103

    /// Validates `path` and removes a stale socket file left by a server that is gone.
    /// - Throws: `EmulatorError` when the path is too long, is not a socket, or a live server owns it.
    static func prepare(_ path: String) throws {
        let bytes = path.utf8.count
        guard bytes <= maximumLength else {
            throw EmulatorError.socketPathTooLong(path: path, bytes: bytes, limit: maximumLength)
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { return }  // nothing there
        guard (info.st_mode & S_IFMT) == S_IFSOCK else { throw EmulatorError.pathIsNotASocket(path: path) }
        if acceptsConnections(path) { throw EmulatorError.socketInUse(path: path) }
        unlink(path)
    }

    /// Whether some server accepts connections on the socket at `path`.
    static func acceptsConnections(_ path: String) -> Bool {
        #if canImport(Glibc)
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return connect(fd, to: path) == 0
    }

    /// `connect(2)` of the unix stream socket `fd` to `path` (cut to what `sun_path` holds).
    /// - Returns: 0, or -1 with `errno` set.
    package static func connect(_ fd: Int32, to path: String) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8.prefix(capacity - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Glibc)
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                #else
                    Darwin.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                #endif
            }
        }
    }
}
