import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a `pymobiledevice3 remote tunneld` serves: doctor asks it, as pymobiledevice3 11.45.0 does before every
/// iOS 17.0–17.3.1 connection (`tunneld/api.py` 202–207, `_list_tunnels`: an HTTP GET of `/` on its address,
/// a JSON object of UDID → tunnels; no answer is `TunneldConnectionError`). The run's sidecar and kdebug helper
/// fail on the same thing, so doctor names the missing tunneld itself rather than what follows from it.
enum TunneldListing {
    /// The tunnels of `udid` at `address` (`host:port`): `nil` when it serves none for the phone.
    /// - Throws: `Unreachable` when nothing answers there within `timeout`, or the answer is not tunneld's.
    ///   A port nobody listens on is refused at once; the timeout is for a listener that does not answer, and is
    ///   generous (10 s) because a busy host (a CI runner's build beside it) answered a local tunneld past 3 s.
    static func tunnels(of udid: String, at address: String, timeout: Duration = .seconds(10)) async throws -> Int? {
        let body = try await get(address, timeout: timeout)
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else {
            throw Unreachable(reason: "it answered, but not with tunneld's list of tunnels")
        }
        for (key, value) in object where key.caseInsensitiveCompare(udid) == .orderedSame {
            let count = (value as? [Any])?.count ?? 0
            return count > 0 ? count : nil
        }
        return nil
    }

    struct Unreachable: Error {
        var reason: String
    }

    /// The body of `GET /` at `host:port`, bounded by `timeout` (connect, send and every read).
    static func get(_ address: String, timeout: Duration) async throws -> String {
        guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else {
            throw Unreachable(reason: "\(address) is not HOST:PORT")
        }
        let host = String(address[..<colon])
        return try await Task.detached { try fetch(host: host, port: port, timeout: timeout) }.value
    }

    private static func fetch(host: String, port: UInt16, timeout: Duration) throws -> String {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let info = found else {
            throw Unreachable(reason: "\(host) cannot be resolved")
        }
        defer { freeaddrinfo(found) }
        let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard fd >= 0 else { throw Unreachable(reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        var limit = timeval(tv_sec: Int(seconds), tv_usec: numericCast(Int((seconds - seconds.rounded(.down)) * 1e6)))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            throw Unreachable(reason: "nothing listens there (\(String(cString: strerror(errno))))")
        }
        let request = "GET / HTTP/1.0\r\nHost: \(host):\(port)\r\nConnection: close\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var response = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while response.count < 1 << 20 {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            response += buffer[0..<count]
        }
        let text = String(decoding: response, as: UTF8.self)
        guard text.hasPrefix("HTTP/"), let split = text.range(of: "\r\n\r\n") else {
            throw Unreachable(reason: "it did not answer HTTP within \(seconds) s")
        }
        return String(text[split.upperBound...])
    }
}
