import Foundation
import LaunchBench

/// One piece of work an emulated device did, and how long it was busy with it in real time (its emulated
/// delays scaled by the lab's time scale, as the event loop actually ran them). Benchmarks compare a client's
/// wall time against the sum of these: the part of the time that is the device's own.
package struct DeviceActivity: Sendable, Hashable, Codable {
    package enum Kind: String, Sendable, Hashable, Codable {
        /// An installation_proxy command (`name` says which: Install, Upgrade, Uninstall, Lookup, Browse).
        case installer
        /// An app process debugserver ran, from `c` to its exit, its kill or the connection's end; or one
        /// processcontrol ran, from its launch to its exit or its kill.
        case launch
    }

    package var kind: Kind
    /// The installd command, or for a launch its kind (`cold`, `warm`).
    package var name: String
    /// The bundle id the work was for, when the request named one.
    package var bundleID: String?
    package var startedAt: Date
    /// Real seconds from the first to the last emulated step.
    package var seconds: Double

    package init(kind: Kind, name: String, bundleID: String?, startedAt: Date, seconds: Double) {
        self.kind = kind
        self.name = name
        self.bundleID = bundleID
        self.startedAt = startedAt
        self.seconds = seconds
    }
}

/// Measures one activity on the event loop that runs it: started when the work starts, recorded once.
final class ActivityTimer {
    private let kind: DeviceActivity.Kind
    private let name: String
    /// Known at the start for most commands; an install learns it from the package.
    var bundleID: String?
    private let startedAt = Date()
    private let start = ContinuousClock.now
    private var recorded = false

    init(kind: DeviceActivity.Kind, name: String, bundleID: String?) {
        self.kind = kind
        self.name = name
        self.bundleID = bundleID
    }

    /// Records the activity in `state` the first time it is called; later calls do nothing.
    func finish(in state: DeviceServiceState) {
        guard !recorded else { return }
        recorded = true
        let elapsed = ContinuousClock.now - start
        let seconds = elapsed.totalSeconds
        state.recordActivity(
            DeviceActivity(kind: kind, name: name, bundleID: bundleID, startedAt: startedAt, seconds: seconds))
    }
}
