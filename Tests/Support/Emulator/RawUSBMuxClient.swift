import DeviceEmulator
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A blocking stream socket with timeouts, for protocol-level tests that speak usbmuxd/lockdown bytes
/// themselves (no libimobiledevice involved).
package final class RawSocket: @unchecked Sendable {
    // One test uses a socket at a time; the descriptor is not shared across threads concurrently.
    private var fd: Int32

    /// Connects to a unix socket path.
    package init(unixPath: String) throws {
        #if canImport(Glibc)
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #else
            fd = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw RawSocketError.system("socket", errno) }
        #if canImport(Darwin)
            var on: Int32 = 1  // a peer that closed must not kill the test process with SIGPIPE
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        guard UnixSocketPath.connect(fd, to: unixPath) == 0 else {
            let code = errno
            _ = unistdClose(fd)
            throw RawSocketError.system("connect \(unixPath)", code)
        }
    }

    deinit { if fd >= 0 { _ = unistdClose(fd) } }

    /// Closes the socket (the peer sees EOF).
    package func close() {
        if fd >= 0 { _ = unistdClose(fd) }
        fd = -1
    }

    /// Writes all bytes.
    package func send(_ data: Data) throws {
        var offset = 0
        while offset < data.count {
            let written = data.withUnsafeBytes { raw in
                #if canImport(Glibc)
                    Glibc.send(fd, raw.baseAddress! + offset, data.count - offset, Int32(MSG_NOSIGNAL))
                #else
                    Darwin.send(fd, raw.baseAddress! + offset, data.count - offset, 0)
                #endif
            }
            guard written > 0 else { throw RawSocketError.system("send", errno) }
            offset += written
        }
    }

    /// Reads exactly `count` bytes.
    /// - Throws: `RawSocketError.timedOut` after `timeout`, `.closed` at EOF.
    package func receive(exactly count: Int, timeout: TimeInterval = 10) throws -> Data {
        var data = Data()
        let deadline = Date().addingTimeInterval(timeout)
        while data.count < count {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw RawSocketError.timedOut }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining, 1) * 1000))
            if ready < 0 { throw RawSocketError.system("poll", errno) }
            if ready == 0 { continue }
            var buffer = [UInt8](repeating: 0, count: count - data.count)
            let read = recv(fd, &buffer, buffer.count, 0)
            if read == 0 { throw RawSocketError.closed }
            if read < 0 { throw RawSocketError.system("recv", errno) }
            data.append(contentsOf: buffer[0..<read])
        }
        return data
    }

    /// Whether the peer closed the connection within `timeout` (reads and discards any data first).
    package func waitForClose(timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 else { return true }
            if poller.revents == 0 { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            if recv(fd, &buffer, buffer.count, 0) <= 0 { return true }
        }
        return false
    }
}

private func unistdClose(_ fd: Int32) -> Int32 { close(fd) }

package enum RawSocketError: Error, CustomStringConvertible {
    case system(String, Int32)
    case timedOut
    case closed
    case badReply(String)

    package var description: String {
        switch self {
        case .system(let call, let code): return "\(call) failed: \(String(cString: strerror(code)))"
        case .timedOut: return "timed out waiting for the peer"
        case .closed: return "the peer closed the connection"
        case .badReply(let why): return "bad reply: \(why)"
        }
    }
}

/// Speaks usbmuxd's plist protocol (16-byte LE header + XML plist) over a ``RawSocket``, and after a
/// `Connect`, lockdown-style frames (4-byte BE length + plist) on the same socket.
package final class RawUSBMuxClient: @unchecked Sendable {
    package let socket: RawSocket
    private var nextTag: UInt32 = 1

    /// Opens a new control connection to the lab's unix socket.
    package init(socketPath: String) throws {
        socket = try RawSocket(unixPath: socketPath)
    }

    /// A usbmuxd frame as received: header fields, the raw payload and the decoded plist.
    package struct Frame {
        package var version: UInt32
        package var message: UInt32
        package var tag: UInt32
        package var payload: Data
        package var plist: [String: Any]
    }

    /// Sends a request (`MessageType` plus extra keys) with the next tag; returns the tag used.
    @discardableResult
    package func send(_ messageType: String, _ extra: [String: Any] = [:]) throws -> UInt32 {
        var plist = extra
        plist["MessageType"] = messageType
        plist["ClientVersionString"] = "libusbmuxd 2.0.2"
        plist["ProgName"] = "raw-test"
        plist["kLibUSBMuxVersion"] = 3
        let body = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        let tag = nextTag
        nextTag += 1
        var header = Data()
        for value in [UInt32(16 + body.count), 1, 8, tag] {
            withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) }
        }
        try socket.send(header + body)
        return tag
    }

    /// Receives one usbmuxd frame.
    package func receive(timeout: TimeInterval = 10) throws -> Frame {
        let header = try socket.receive(exactly: 16, timeout: timeout)
        func field(_ index: Int) -> UInt32 {
            header.withUnsafeBytes {
                UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
            }
        }
        let length = Int(field(0))
        guard length >= 16 else { throw RawSocketError.badReply("length \(length)") }
        let payload = try socket.receive(exactly: length - 16, timeout: timeout)
        guard let plist = try PropertyListSerialization.propertyList(from: payload, format: nil) as? [String: Any]
        else { throw RawSocketError.badReply("payload is not a plist dictionary") }
        return Frame(version: field(1), message: field(2), tag: field(3), payload: payload, plist: plist)
    }

    /// Sends a request and returns its reply.
    package func request(_ messageType: String, _ extra: [String: Any] = [:], timeout: TimeInterval = 10) throws
        -> Frame
    {
        try send(messageType, extra)
        return try receive(timeout: timeout)
    }

    /// `Connect` to `port` on a device, byte-swapping the port as libusbmuxd does; returns the Result number.
    package func connect(deviceID: Int, port: Int) throws -> Int {
        let swapped = Int(UInt16(port).byteSwapped)
        let reply = try request("Connect", ["DeviceID": deviceID, "PortNumber": swapped])
        return Self.integer(reply.plist["Number"]) ?? -1
    }

    /// Sends one lockdown-style frame (after a successful `Connect`).
    package func sendPlistFrame(_ plist: [String: Any]) throws {
        let body = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        var frame = Data()
        withUnsafeBytes(of: UInt32(body.count).bigEndian) { frame.append(contentsOf: $0) }
        try socket.send(frame + body)
    }

    /// Receives one lockdown-style frame; returns the raw body and the decoded dictionary.
    package func receivePlistFrame(timeout: TimeInterval = 10) throws -> (raw: Data, plist: [String: Any]) {
        let header = try socket.receive(exactly: 4, timeout: timeout)
        let length = header.withUnsafeBytes { UInt32(bigEndian: $0.loadUnaligned(as: UInt32.self)) }
        let body = try socket.receive(exactly: Int(length), timeout: timeout)
        guard let plist = try PropertyListSerialization.propertyList(from: body, format: nil) as? [String: Any]
        else { throw RawSocketError.badReply("lockdown body is not a plist dictionary") }
        return (body, plist)
    }

    /// One lockdown request/reply.
    package func lockdown(_ request: String, _ extra: [String: Any] = [:]) throws -> [String: Any] {
        var plist = extra
        plist["Request"] = request
        plist["Label"] = "raw-test"
        try sendPlistFrame(plist)
        return try receivePlistFrame().plist
    }

    /// An integer from a decoded plist value.
    package static func integer(_ value: Any?) -> Int? {
        switch value {
        case let int as Int: return int
        case let number as NSNumber: return number.intValue
        default: return nil
        }
    }
}
