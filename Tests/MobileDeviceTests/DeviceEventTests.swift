import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import MobileDevice

/// usbmuxd hot-plug events through libusbmuxd's listener, against the shared emulated lab.
@Suite(.tags(.emulator), .timeLimit(.minutes(5))) struct DeviceEventTests {
    @Test func seesDetachAndAttach() async throws {
        try await SharedTestLab.withDevice { device in
            let lab = try await SharedTestLab.lab()
            let recorder = EventRecorder(try await MobileDeviceDriver().deviceEvents())
            defer { recorder.stop() }

            // A new listener first hears about the devices already there, this one included.
            let present = try await recorder.waitFor(.attached(udid: device.udid))
            try lab.detach(udid: device.udid)
            let gone = try await recorder.waitFor(.detached(udid: device.udid), after: present)
            try lab.attach(udid: device.udid)
            _ = try await recorder.waitFor(.attached(udid: device.udid), after: gone)
        }
    }

    @Test func twoListenersBothHearTheEvent() async throws {
        try await SharedTestLab.withDevice { device in
            let lab = try await SharedTestLab.lab()
            let driver = MobileDeviceDriver()
            let first = EventRecorder(try await driver.deviceEvents())
            let second = EventRecorder(try await driver.deviceEvents())
            defer {
                first.stop()
                second.stop()
            }
            let seenFirst = try await first.waitFor(.attached(udid: device.udid))
            let seenSecond = try await second.waitFor(.attached(udid: device.udid))
            try lab.detach(udid: device.udid)
            _ = try await first.waitFor(.detached(udid: device.udid), after: seenFirst)
            _ = try await second.waitFor(.detached(udid: device.udid), after: seenSecond)
        }
    }

    @Test func aSubscriberMayUnsubscribeFromInsideItsHandler() async throws {
        try await SharedTestLab.withDevice { device in
            // Before the hub called subscribers outside its lock, this deadlocked the event thread.
            let token = Locked<UInt64?>(nil)
            let heard = Locked<[DeviceEvent]>([])
            let hub = USBMuxEventHub.shared
            let own = try hub.subscribe { event in
                heard.withLock { $0.append(event) }
                if let own = token.current { hub.unsubscribe(own) }
            }
            token.withLock { $0 = own }
            let lab = try await SharedTestLab.lab()
            try lab.detach(udid: device.udid)
            try lab.attach(udid: device.udid)
            // The hub still delivers to everyone else: a new subscriber hears this device.
            let recorder = EventRecorder(try await MobileDeviceDriver().deviceEvents())
            defer { recorder.stop() }
            _ = try await recorder.waitFor(.attached(udid: device.udid))
            #expect(heard.current.count >= 1)
        }
    }
}

/// Collects a device event stream in the background so tests can wait for one event (other tests'
/// devices share the lab, so unrelated events are expected and skipped).
final class EventRecorder: Sendable {
    private let events = Locked<[DeviceEvent]>([])
    /// Rung at each event: what `waitFor` wakes on.
    private let changes = ChangeSignal()
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<DeviceEvent>) {
        let events = self.events
        let changes = self.changes
        task = Task {
            for await event in stream {
                events.withLock { $0.append(event) }
                changes.notify()
            }
        }
    }

    func stop() { task.cancel() }

    var all: [DeviceEvent] { events.current }

    /// The index of the first `event` after index `after`; throws after a generous timeout.
    func waitFor(_ event: DeviceEvent, after: Int = -1, timeout: Duration = .seconds(30)) async throws -> Int {
        var found: Int?
        try? await changes.wait(until: "\(event)", timeout: timeout) {
            let seen = all
            found = seen.indices.first { $0 > after && seen[$0] == event }
            return found != nil
        }
        guard let found else { throw EventTimeout(event: event, seen: all) }
        return found
    }
}

struct EventTimeout: Error, CustomStringConvertible {
    var event: DeviceEvent
    var seen: [DeviceEvent]
    var description: String { "no \(event) within the timeout; seen: \(seen)" }
}
