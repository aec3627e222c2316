import Foundation

extension EmulatedDevice {
    /// The state the device services keep for this device (installed apps, launch counters, and the
    /// switches `isLocked`, `bootSeconds`, `seed`, `installFailure`). Created on first use; its AFC media
    /// root is `directory/Media`.
    package var services: DeviceServiceState {
        serviceState(DeviceServiceState.self) {
            DeviceServiceState(mediaRoot: directory.appendingPathComponent("Media"))
        }
    }
}

extension EmulatedLab {
    /// The real time of `ms` emulated milliseconds, for event-loop timers.
    func realTime(ofEmulatedMs ms: Double) -> TimeAmountValue {
        TimeAmountValue(nanoseconds: Int64((max(0, ms) * 1e6 * timeScale).rounded()))
    }
}

/// Nanoseconds, kept NIO-free so the planner and tests can use it.
struct TimeAmountValue: Sendable {
    var nanoseconds: Int64
}
