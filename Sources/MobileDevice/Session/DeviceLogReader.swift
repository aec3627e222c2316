import Foundation
import LaunchBench

/// Reads one device's log through the syslog relay, line by line, on a thread of its own: the relay sends
/// without end, so its blocking reads must not hold the device's queue (launches, installs) nor the
/// cooperative pool. The thread ends within one receive timeout of the stream's consumer going away.
enum DeviceLogReader {
    /// How long one read waits, so a stop is seen promptly.
    static let receiveTimeoutMs: UInt32 = 200

    /// The device's log lines from now on, once the relay is connected (NUL bytes, which the relay sends between
    /// messages and idevicesyslog drops, are dropped; a trailing `\r` too). The stream ends with an error when
    /// the connection fails.
    /// - Throws: `DeviceError` when the device or the service cannot be reached.
    static func lines(udid: String) async throws -> AsyncThrowingStream<String, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: String.self, throwing: (any Error).self, bufferingPolicy: .bufferingNewest(4096))
        let stop = CancellationFlag()
        continuation.onTermination = { _ in stop.cancel() }
        try await withCheckedThrowingContinuation { (opened: CheckedContinuation<Void, any Error>) in
            let thread = Thread {
                let client: SyslogRelayClient
                do {
                    client = try SyslogRelayClient(device: try DeviceHandle(udid: udid))
                } catch {
                    opened.resume(throwing: error)
                    return
                }
                opened.resume()
                do {
                    var splitter = LineSplitter()
                    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
                    while !stop.isCancelled {
                        let count = try client.receive(into: &buffer, timeoutMs: receiveTimeoutMs)
                        for line in splitter.take(buffer[..<count]) { continuation.yield(line) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            thread.name = "launchbench.syslog.\(udid)"
            thread.start()
        }
        return stream
    }

    /// Bytes in, whole lines out.
    struct LineSplitter {
        private var pending: [UInt8] = []

        mutating func take(_ bytes: ArraySlice<UInt8>) -> [String] {
            var lines: [String] = []
            for byte in bytes where byte != 0 {
                if byte == UInt8(ascii: "\n") {
                    if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                    lines.append(String(decoding: pending, as: UTF8.self))
                    pending.removeAll(keepingCapacity: true)
                } else if pending.count < 64 * 1024 {
                    pending.append(byte)
                }
            }
            return lines
        }
    }
}
