import Foundation
import LaunchBench
import NIOCore

/// The device's running core profile sessions: every launch's kdebug events go to each of them, filtered
/// as the kernel filters them (`kdf2`). One per device (``EmulatedDevice/serviceState(_:create:)``).
final class KdebugTaps: Sendable {
    struct Tap: Sendable {
        var filter: KdebugFilter
        /// Sends one DATA message on the tap's channel.
        var send: @Sendable ([UInt8]) -> Void
    }

    /// The most records one DATA message carries (whole records only, never split across messages).
    static let recordsPerChunk = 2048

    private let taps = Subscribers<Tap>()

    /// Adds a running session; returns its key for ``remove(_:)``.
    func add(_ tap: Tap) -> Int { taps.add(tap) }

    func remove(_ id: Int) { taps.remove(id) }

    var isEmpty: Bool { taps.count == 0 }

    private let dropping = Locked(false)

    /// A trace buffer that wraps during every launch (a fault; default off): the kernel's reader then puts a
    /// `TRACE_LOST_EVENTS` record (0x07020008, no arguments) before the events it still has, stamped with the
    /// read's earliest time (xnu bsd/kern/kdebug_common.c:629-630 and :845, xnu-11417.101.15).
    var dropsEvents: Bool {
        get { dropping.current }
        set { dropping.withLock { $0 = newValue } }
    }

    private let withholding = Locked(false)

    /// A phone whose sessions never see dyld's events (class 31, DBG_DYLD) of the apps launched (a fault; default
    /// off). Whether a real phone sends them for a third-party app is what RealPhoneStatus.md asks first; this
    /// plays the answer "no", with exec and UIKit's events still arriving.
    var withholdsDyldEvents: Bool {
        get { withholding.current }
        set { withholding.withLock { $0 = newValue } }
    }

    private let heartbeats = Locked<(interval: Duration?, askedNone: Bool?)>((nil, nil))

    /// Every running session gets an empty DATA message this often, a heartbeat (`nil`, default: none). An empty
    /// message is what pymobiledevice3 11.45.0 turns a heartbeat into (`dtx/channel.py` `_handle_data`, and an
    /// OBJECT without payload in `_handle_notification`) and skips on the activity trace tap
    /// (`activity_trace_tap.py:400`, "skip heartbeats"). Instruments' tap configuration asks for none with
    /// `nohb` (`-[DTTapConfig discardHeartbeatsWhenPossible]`, DVTInstrumentsFoundation); only the activity trace
    /// tap is seen honouring it, so a session here gets heartbeats whatever it asked (the worse case).
    var heartbeatInterval: Duration? {
        get { heartbeats.current.interval }
        set { heartbeats.withLock { $0.interval = newValue } }
    }

    /// Whether the last `setConfig:` asked for no heartbeats (`nohb`), `nil` when it said nothing.
    var askedNoHeartbeats: Bool? {
        get { heartbeats.current.askedNone }
        set { heartbeats.withLock { $0.askedNone = newValue } }
    }

    /// Sends `records` to every running session, in chunks of whole records.
    func publish(_ records: [KdebugRecord]) {
        var records = records
        if withholdsDyldEvents { records.removeAll { $0.debugID.eventClass == 0x1F } }
        if dropsEvents, let first = records.map(\.timestamp).min() {
            records.insert(KdebugRecord(timestamp: first, debugID: .traceLostEvents), at: 0)
        }
        for tap in taps.all {
            let wanted = records.filter { tap.filter.passes($0.debugID) }
            var start = 0
            while start < wanted.count {
                let chunk = wanted[start..<min(start + Self.recordsPerChunk, wanted.count)]
                tap.send(chunk.flatMap(\.bytes))
                start += Self.recordsPerChunk
            }
        }
    }

    /// Schedules one launch's events (whoever launched it: debugserver or processcontrol) for every session
    /// running when they are due: all of them at once
    /// when the launch's pre-main ends (a real device flushes every 100 ms; the consumer sees the same
    /// events, a little earlier).
    static func publishLaunch(
        plan: LaunchPlan, device: EmulatedDevice, lab: EmulatedLab, buildsClosure: Bool, eventLoop: any EventLoop
    ) {
        let taps = device.serviceState(KdebugTaps.self) { KdebugTaps() }
        // A session that starts after exec misses this launch, as the kernel's would.
        guard let version = device.osVersion, !taps.isEmpty else { return }
        let events = KdebugLaunchEvents(plan: plan, osVersion: version, buildsClosure: buildsClosure)
        let timeline = events.timeline(execTick: MachClock.now(lab: lab))
        let delay = TimeAmount.nanoseconds(lab.realTime(ofEmulatedMs: timeline.endMs).nanoseconds)
        eventLoop.scheduleTask(in: delay) { taps.publish(timeline.records) }
    }
}

/// The kernel's event filter as a session configures it: `class<<24 | subclass<<16` values, a subclass of
/// 0xFF meaning the whole class, and an empty set or 0xFFFFFFFF meaning everything.
struct KdebugFilter: Sendable, Equatable {
    var values: Set<UInt32>

    func passes(_ id: KdebugDebugID) -> Bool {
        if values.isEmpty || values.contains(0xFFFF_FFFF) { return true }
        return values.contains(id.rawValue & 0xFFFF_0000) || values.contains(id.rawValue & 0xFF00_0000 | 0x00FF_0000)
    }
}

/// The emulated device's `mach_absolute_time`: 24 MHz ticks that advance with emulated time (real time
/// divided by the lab's time scale), so durations on this clock are the plan's.
enum MachClock {
    /// The timebase `machTimeInfo` reports: numer/denom = 125/3 ns per tick.
    static let numerator = 125
    static let denominator = 3

    static func now(lab: EmulatedLab) -> UInt64 {
        let nanoseconds = Double(DispatchTime.now().uptimeNanoseconds) / lab.timeScale
        return UInt64(nanoseconds * Double(denominator) / Double(numerator))
    }
}

/// The RAW_VERSION2 header chunk a session sends first: the magic, `kd_header_v2`, the thread map, zero
/// padding to 4 KiB.
enum KdebugHeaderChunk {
    static func bytes(threads: [KdebugThread], date: Date = Date()) -> [UInt8] {
        let seconds = date.timeIntervalSince1970
        return KdebugHeader(
            seconds: UInt64(seconds), microseconds: UInt32((seconds - seconds.rounded(.down)) * 1_000_000), flags: 1,
            tickFrequency: KdebugLaunchEvents.ticksPerMicrosecond * 1_000_000, threads: threads
        ).rawVersion2Chunk
    }
}
