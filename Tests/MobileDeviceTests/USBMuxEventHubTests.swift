import Dispatch
import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import MobileDevice

/// The hub's fan-out without libusbmuxd: each test feeds its own hub with `deliver`, as libusbmuxd's
/// callback feeds the shared one. The hub's calls run on a thread of their own and the test waits, bounded, for
/// what they heard (each event heard wakes it), so a deadlock fails the test instead of hanging the run.
@Suite(.timeLimit(.minutes(1))) struct USBMuxEventHubTests {
    @Test func aSubscriberMayUnsubscribeAndSubscribeFromInsideItsHandler() async throws {
        let hub = USBMuxEventHub(start: {})
        let changes = ChangeSignal()
        let first = HeardEvents(changes)
        let second = HeardEvents(changes)
        let firstToken = Locked<UInt64?>(nil)
        let secondSubscribed = DispatchSemaphore(value: 0)
        let finished = Locked(false)
        Thread.detachNewThread {
            hub.deliver(.attached(udid: "A"))
            // While the hub called subscribers with its lock held, this handler's calls deadlocked it.
            let token = try? hub.subscribe { event in
                first.append(event)
                guard event == .detached(udid: "A") else { return }
                if let own = firstToken.current { hub.unsubscribe(own) }
                _ = try? hub.subscribe { second.append($0) }
                secondSubscribed.signal()
            }
            firstToken.withLock { $0 = token }
            hub.deliver(.detached(udid: "A"))
            guard secondSubscribed.wait(timeout: .now() + 10) == .success else { return }
            hub.deliver(.attached(udid: "B"))
            hub.deliver(.detached(udid: "B"))
            finished.withLock { $0 = true }
            changes.notify()
        }
        try await changes.wait(until: "the hub got through a handler that calls back into it", timeout: .seconds(10)) {
            finished.current && second.all.count == 2
        }
        #expect(first.all == [.attached(udid: "A"), .detached(udid: "A")])
        #expect(second.all == [.attached(udid: "B"), .detached(udid: "B")])
    }

    @Test func anUnsubscribedHandlerIsNotCalledWithEventsQueuedBefore() async throws {
        let hub = USBMuxEventHub(start: {})
        let gate = DispatchSemaphore(value: 0)
        let blocked = Locked(false)
        let changes = ChangeSignal()
        let heard = HeardEvents(changes)
        let later = HeardEvents(changes)
        let token = Locked<UInt64?>(nil)
        let finished = Locked(false)
        Thread.detachNewThread {
            hub.deliver(.attached(udid: "X"))
            // Holds the delivery queue on its first call until everything below is queued.
            _ = try? hub.subscribe { _ in
                let first = blocked.withLock { blocked -> Bool in
                    defer { blocked = true }
                    return !blocked
                }
                if first { _ = gate.wait(timeout: .now() + 10) }
            }
            let own = try? hub.subscribe { event in
                heard.append(event)
                if let own = token.current { hub.unsubscribe(own) }
            }
            token.withLock { $0 = own }
            hub.deliver(.detached(udid: "X"))
            hub.deliver(.attached(udid: "Y"))
            gate.signal()
            _ = try? hub.subscribe { later.append($0) }  // queued last: once it heard Y, the queue is through
            finished.withLock { $0 = true }
            changes.notify()
        }
        try await changes.wait(until: "the hub got through a handler that calls back into it", timeout: .seconds(10)) {
            finished.current && later.all == [.attached(udid: "Y")]
        }
        #expect(heard.all == [.attached(udid: "X")])
    }

    @Test func aNewSubscriberHearsThePresentDevicesThenEveryEventInOrder() async throws {
        let hub = USBMuxEventHub(start: {})
        for udid in ["A", "B", "C"] { hub.deliver(.attached(udid: udid)) }
        hub.deliver(.detached(udid: "B"))
        let changes = ChangeSignal()
        let heard = HeardEvents(changes)
        _ = try hub.subscribe { heard.append($0) }
        let events: [DeviceEvent] = (0..<200).map {
            $0 % 2 == 0 ? .attached(udid: "D\($0)") : .detached(udid: "D\($0 - 1)")
        }
        for event in events { hub.deliver(event) }
        let expected = [DeviceEvent.attached(udid: "A"), .attached(udid: "C")] + events
        try await changes.wait(until: "\(expected.count) events heard", timeout: .seconds(10)) {
            heard.all.count == expected.count
        }
        #expect(heard.all == expected)
    }
}

/// What one subscriber heard, oldest first; each event rings `changes`.
private final class HeardEvents: Sendable {
    private let events = Locked<[DeviceEvent]>([])
    private let changes: ChangeSignal

    init(_ changes: ChangeSignal) { self.changes = changes }

    func append(_ event: DeviceEvent) {
        events.withLock { $0.append(event) }
        changes.notify()
    }

    var all: [DeviceEvent] { events.current }
}
