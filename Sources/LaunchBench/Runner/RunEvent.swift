/// What happens during a run, as the runner reports it for progress display. Reported from several
/// device tasks at once; a reporter synchronises itself.
package enum RunEvent: Sendable {
    /// Something to know about a device's measurements (iOS-version caveats), before it starts.
    case deviceNote(DeviceInfo, String)
    /// An attached device whose values could not be read is left out (it may be restarting).
    case deviceUnreadable(UnreadableDevice)
    /// The device will not be measured; the message says why and what to do.
    case deviceSkipped(DeviceInfo, String)
    /// The device's launches begin.
    case deviceStarted(DeviceInfo, iterations: Int)
    /// Work before a launch: `reinstalling`, `restarting`, `settling`, `installing`.
    case preparing(udid: String, iteration: Int, step: String)
    /// One launch was measured and its sample written.
    case launchFinished(Sample)
    /// The device is done (all launches made, lost, stopped or interrupted).
    case deviceFinished(udid: String, outcome: RunManifest.DeviceOutcome.Outcome, message: String?)
}

/// Receives run events (the command draws progress from them).
package protocol RunReporter: Sendable {
    /// Called once per event, from any device's task and possibly from several at once; must not block
    /// for long, since the device's launches wait for it.
    func report(_ event: RunEvent)
}

/// A reporter that ignores everything.
package struct SilentRunReporter: RunReporter {
    /// A reporter that prints nothing.
    package init() {}
    /// Ignores `event`.
    package func report(_ event: RunEvent) {}
}
