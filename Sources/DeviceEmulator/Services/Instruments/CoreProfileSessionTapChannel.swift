import Foundation
import LaunchBench
import NIOCore

/// `com.apple.instruments.server.services.coreprofilesessiontap`: a kernel trace session. `setConfig:`
/// stores the event filter, `start` answers with a notice and the RAW_VERSION2 header, after which every
/// launch on the device streams its kdebug events here until `stop` (DVT-KDEBUG.md §2). kperf has one owner
/// at a time: a second session on the device gets a notice with a non-zero status and no data, as when
/// Instruments or Xcode is recording (the notice's text on a real phone is unverified). A running session can get
/// empty heartbeats between its data (``KdebugTaps/heartbeatInterval``).
final class CoreProfileSessionTapChannel: InstrumentsChannel {
    static let identifier = "com.apple.instruments.server.services.coreprofilesessiontap"
    static let lockedNotice = "could not lock kperf: another session (Instruments or Xcode) is recording"

    private let taps: KdebugTaps
    private var filter = KdebugFilter(values: [])
    private var running: Int?
    private let eventLoop: (any EventLoop)?
    private var heartbeat: RepeatedTask?

    init(device: EmulatedDevice, eventLoop: (any EventLoop)? = nil) {
        self.taps = device.serviceState(KdebugTaps.self) { KdebugTaps() }
        self.eventLoop = eventLoop
    }

    func receive(selector: String, arguments: [DTXArgument], replies: InstrumentsReplies) {
        switch selector {
        case "setConfig:":
            filter = Self.filter(from: arguments.first?.value)
            taps.askedNoHeartbeats = ((arguments.first?.value as? NSDictionary)?["nohb"] as? NSNumber)?.boolValue
            replies.ok()
        case "start":
            guard running == nil else { return replies.ok() }
            guard taps.isEmpty else {
                replies.unsolicited(.object, payload: KeyedArchive.encode(Self.notice(Self.lockedNotice, status: 1)))
                return replies.ok()
            }
            // The first message after `start` is read as an acknowledgement and dropped by pymobiledevice3;
            // what a real phone sends there is unverified.
            replies.unsolicited(.object, payload: KeyedArchive.encode(Self.notice("started", status: 0)))
            let threads = [
                KdebugThread(threadID: KdebugLaunchEvents.launchdThread, pid: 1, processName: "launchd"),
                KdebugThread(threadID: 555, pid: 55, processName: "SpringBoard"),
            ]
            replies.unsolicited(.data, payload: KdebugHeaderChunk.bytes(threads: threads))
            let send = replies.channelSender
            running = taps.add(KdebugTaps.Tap(filter: filter) { send(.data, $0) })
            if let interval = taps.heartbeatInterval, let eventLoop {
                let every = TimeAmount.nanoseconds(Int64((interval.totalSeconds * 1e9).rounded()))
                heartbeat = eventLoop.scheduleRepeatedTask(initialDelay: every, delay: every) { _ in send(.data, []) }
            }
            replies.ok()
        case "stop":
            close()
            replies.ok()
        default:
            replies.error("coreprofilesessiontap: unsupported selector \(selector)")
        }
    }

    func close() {
        if let running { taps.remove(running) }
        running = nil
        heartbeat?.cancel()
        heartbeat = nil
    }

    private static func notice(_ text: String, status: Int) -> NSDictionary {
        ["notice": text as NSString, "status": NSNumber(value: status)]
    }

    /// The union of every trigger's `kdf2` set (`{"tc": [{"kdf2": NSSet, …}], …}`).
    static func filter(from config: Any?) -> KdebugFilter {
        guard let config = config as? NSDictionary, let triggers = config["tc"] as? NSArray else {
            return KdebugFilter(values: [])
        }
        var values = Set<UInt32>()
        for case let trigger as NSDictionary in triggers {
            let entries: [Any] =
                (trigger["kdf2"] as? NSSet)?.allObjects ?? (trigger["kdf2"] as? NSArray).map { Array($0) } ?? []
            for case let number as NSNumber in entries { values.insert(number.uint32Value) }
        }
        return KdebugFilter(values: values)
    }
}
