/// Where one device's launches got their numbers, each the majority of its measured launches: what the gate,
/// `--against` and `trend` compare like with like. The same build reads differently when a source changes:
/// kdebug's pre-main total counts from the process's creation, dyld's printed one from dyld's start; UIKit's
/// first frame is not LaunchProbe's marker; debugserver pauses dyld at its image notifier, process control
/// does not. `nil` is unknown (a file written before the field), which is no change.
package struct MeasurementSources: Sendable, Hashable {
    /// The pre-main source (`premain_source`); `notMeasured` when its kdebug session was lost.
    package var premain: PremainSource?
    /// The first frame's source (`first_frame_source`, else derived, see ``firstFrame(of:)``).
    package var firstFrame: FirstFrameSource?
    /// How the app was launched (`launcher`).
    package var launcher: LaunchMethod?

    /// Sources as given.
    package init(premain: PremainSource? = nil, firstFrame: FirstFrameSource? = nil, launcher: LaunchMethod? = nil) {
        self.premain = premain
        self.firstFrame = firstFrame
        self.launcher = launcher
    }

    /// Where `sample`'s `first_frame_ms` came from; `nil` when it has none. A file written before
    /// `first_frame_source` says it through its pre-main source: a launch kdebug timed had its marker replaced
    /// by UIKit's first Initial Frame Rendering END after main, with no BEGIN to anchor it (what
    /// `uikit-unanchored` means now); any other launch's first frame was LaunchProbe's marker.
    package static func firstFrame(of sample: Sample) -> FirstFrameSource? {
        guard sample[.firstFrameMs] != nil else { return nil }
        if let recorded = sample.firstFrameSource { return recorded }
        return sample.premainSource == .kdebug ? .uikitUnanchored : .markers
    }

    /// What differs between `old` (the baseline's, BASE's, the series' last) and `new` for `metric`, in words:
    /// the launcher for every metric, the pre-main source for the values dyld's phases give, the first frame's
    /// source for `first_frame_ms`. Unknown on a side is no change.
    package static func changes(_ metric: Metric, old: MeasurementSources, new: MeasurementSources) -> [String] {
        var changes: [String] = []
        if Self.premainMetrics.contains(metric), let a = old.premain, let b = new.premain, a != b {
            changes.append("pre-main source \(a.rawValue) → \(b.rawValue)")
        }
        if metric == .firstFrameMs, let a = old.firstFrame, let b = new.firstFrame, a != b {
            changes.append("first frame source \(a.rawValue) → \(b.rawValue)")
        }
        if let a = old.launcher, let b = new.launcher, a != b {
            changes.append("launcher \(a.rawValue) → \(b.rawValue)")
        }
        return changes
    }

    /// The metrics whose value depends on where pre-main was timed.
    static let premainMetrics: Set<Metric> = Set(Metric.preMain + [.processCreationMs, .closureBuildMs])
}
