/// Which engine launches on each device: `--engine` and what this host offers, decided per device by
/// `EngineChoice`. The composition root hands the same router to the runner (which records and advises on the
/// decision) and to the routing driver (which sends the device's calls there), so both see one decision.
package struct EngineRouter: Sendable, Hashable {
    /// `--engine`.
    package var selection: EngineSelection
    /// What this computer offers.
    package var host: EngineHost

    /// Lockdown's debugserver only: libimobiledevice up to iOS 16, none from iOS 17 on (a runner over a driver
    /// that routes nowhere else, as in most tests).
    package static let libimobiledeviceOnly = EngineRouter(selection: .auto, host: .libimobiledeviceOnly)

    /// Decides by `selection` on `host`.
    package init(selection: EngineSelection, host: EngineHost) {
        self.selection = selection
        self.host = host
    }

    /// The engine for `device`, or why none can launch on it.
    package func decision(for device: DeviceInfo) -> EngineDecision {
        EngineChoice.decide(for: device, selection: selection, host: host)
    }
}
