import Foundation
import LaunchBench

extension DeviceSession {
    /// Restarts the device through diagnostics_relay and returns once usbmuxd has seen it leave and
    /// come back (the caller then waits its settle time).
    func restart(timeout: Duration, cancellation: CancellationFlag) throws {
        let deadline = ContinuousClock.now + timeout
        try checkNotCancelled(cancellation)
        let events = try DeviceEventLog()
        defer { events.stop() }
        // A new listener first hears about every present device: once this device is reported the
        // Listen connection is up, so its detach cannot be missed.
        _ = waitFor(deadline: min(deadline, .now + .seconds(3)), cancellation: cancellation) {
            events.contains(.attached(udid: udid))
        }
        forgetLockdown()  // the phone comes back with new connections
        try detectingLoss(during: "restart") {
            let device = try DeviceHandle(udid: udid)
            let service = try DiagnosticsRelayClient.startService(on: LockdownClient(device: device, handshake: true))
            let relay = try DiagnosticsRelayClient(device: device, service: service)
            try relay.restartAfterDisconnect()
            // The device may already be going down: a failed Goodbye does not matter.
            try? relay.goodbye()
        }
        let detached = waitFor(deadline: deadline, cancellation: cancellation) {
            events.all.contains(.detached(udid: udid))
        }
        try checkWait(detached, step: "restart (waiting for the device to go down)", timeout: timeout, cancellation)
        let back = waitFor(deadline: deadline, cancellation: cancellation) {
            let log = events.all
            guard let gone = log.firstIndex(of: .detached(udid: udid)) else { return false }
            return log[gone...].contains(.attached(udid: udid))
        }
        try checkWait(back, step: "restart (waiting for the device to come back)", timeout: timeout, cancellation)
    }

    /// Polls `condition` every 50 ms until it holds (`true`), the deadline passes or the task is cancelled.
    private func waitFor(
        deadline: ContinuousClock.Instant, cancellation: CancellationFlag, _ condition: () -> Bool
    ) -> Bool {
        while !condition() {
            if cancellation.isCancelled || ContinuousClock.now >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return true
    }

    private func checkWait(
        _ succeeded: Bool, step: String, timeout: Duration, _ cancellation: CancellationFlag
    ) throws {
        if succeeded { return }
        if cancellation.isCancelled { throw CancellationError() }
        throw DeviceError.timedOut(operation: step, udid: udid, seconds: timeout.totalSeconds)
    }
}
