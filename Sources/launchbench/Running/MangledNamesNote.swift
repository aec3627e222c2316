import LaunchBench

/// Says once, above the progress, that Swift initializers keep their mangled names (no `swift-demangle` was
/// found), and only when a launch's initializer functions, which only kdebug names, include one: a run that
/// never reads kdebug, or whose initializers are C's, has nothing to be told. Every event goes on unchanged.
final class MangledNamesNote: RunReporter {
    private struct State {
        var devices: [String: DeviceInfo] = [:]
        var said = false
    }

    private let next: any RunReporter
    private let note: String
    private let state = Locked(State())

    /// Forwards every event to `next`, and `note` as a device note, once.
    init(forwardingTo next: any RunReporter, note: String) {
        self.next = next
        self.note = note
    }

    func report(_ event: RunEvent) {
        next.report(event)
        switch event {
        case .deviceStarted(let device, _):
            state.withLock { $0.devices[device.udid] = device }
        case .launchFinished(let sample) where InitializerNames.keepsMangledName(sample):
            let device = state.withLock { state -> DeviceInfo? in
                guard !state.said, let device = state.devices[sample.deviceUDID] else { return nil }
                state.said = true
                return device
            }
            if let device { next.report(.deviceNote(device, note)) }
        default:
            break
        }
    }
}
