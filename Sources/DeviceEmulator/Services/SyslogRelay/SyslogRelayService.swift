import Foundation
import LaunchBench
import NIOCore

/// `com.apple.syslog_relay`: the device log as plain text, each message from the moment the client connects
/// (nothing before), never a request. A message goes out as its line, `\n` and a NUL: clients drop the NULs
/// (libimobiledevice 1.3.0's idevicesyslog and `syslog_relay_start_capture` keep only non-zero bytes), and
/// where a real phone puts them is unverified. The emulated phone writes only what its tests read
/// (runningboardd's launch requests, `EmulatedPrelaunches`).
package struct SyslogRelayService: EmulatedService {
    package let serviceNames: Set<String> = [SyslogRelay.serviceName]

    package init() {}

    package func accept(_ connection: ServiceConnection) throws {
        let relay = connection.device.syslogRelay
        let id = relay.add(connection.channel)
        connection.channel.closeFuture.whenComplete { _ in relay.remove(id) }
    }
}

/// The open syslog relay connections of one device (``EmulatedDevice/syslogRelay``), and what the device logs.
package final class SyslogRelay: Sendable {
    static let serviceName = "com.apple.syslog_relay"

    private let channels = Subscribers<any Channel>()

    func add(_ channel: any Channel) -> Int { channels.add(channel) }

    func remove(_ id: Int) { channels.remove(id) }

    /// How many clients read the log now.
    package var readers: Int { channels.count }

    /// Sends `message` as `process[pid] <Level>: message` with the syslog date and the device's name in front,
    /// the shape of the relay's lines (unverified for runningboardd's messages on iOS 15+).
    func log(_ message: String, process: String, pid: Int, deviceName: String, date: Date = Date()) {
        let line = "\(Self.timestamp(date)) \(deviceName) \(process)[\(pid)] <Notice>: \(message)\n"
        let bytes = Array(line.utf8) + [0]
        for channel in channels.all {
            channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
        }
    }

    /// `Nov 26 09:12:03`: syslog's date, English month, no year, UTC here.
    static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "MMM dd HH:mm:ss"
        return formatter.string(from: date)
    }
}

extension EmulatedDevice {
    /// The device's syslog relay connections.
    package var syslogRelay: SyslogRelay { serviceState(SyslogRelay.self) { SyslogRelay() } }
}
