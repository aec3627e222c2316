/// Where the time of a launch goes, phase by phase, as medians over a group of launches.
///
/// Phases, in order: from kdebug (iOS 14+), process creation (exec → dyld's start) and the launch closure
/// build (first launch after an install: shown, never folded into another phase), then dyld's four pre-main phases (dylib loading, rebase/binding, ObjC setup,
/// initializers), then from the app's markers: "other pre-main (not itemised)" (process start → `main`
/// minus dyld's total: exec, dyld's own start, anything dyld does not itemise; "pre-main (start →
/// main)" for launches without dyld statistics), `main` →
/// `didFinishLaunching`, `didFinishLaunching` → first frame. Each phase's length is computed per
/// launch and then its median taken, so a phase is only shown from launches that measured both
/// of its ends. The medians of the parts do not in general add up to the median of the whole;
/// the chart says so.
package struct PhaseBreakdown: Sendable, Hashable {
    /// One segment of the bar: a phase's median length and how many launches it comes from.
    package struct Phase: Sendable, Hashable {
        /// The label shown in charts and tables, one of `PhaseBreakdown.names`.
        package var name: String
        /// Median length in ms over the launches that measured it.
        package var medianMs: Double
        /// How many launches measured it.
        package var n: Int
    }

    /// Phases with at least one measured launch, in launch order.
    package var phases: [Phase]

    /// - Parameter points: launches of one device and kind; failed ones are ignored.
    package init(points: [LaunchPoint]) {
        let measured = points.filter { !$0.status.isFailure }
        // With dyld's phases, start → main minus them is the rest; without (iOS 15+), it is all of pre-main.
        let itemised = measured.contains { s in Metric.preMain.contains { s[$0] != nil } }
        let definitions: [(String, (LaunchPoint) -> Double?)] = [
            (Self.processCreation, { $0[.processCreationMs] }),
            (Self.closureBuild, { $0[.closureBuildMs] }),
            ("dylib loading", { $0[.dylibLoadingMs] }),
            ("rebase/binding", { $0[.rebaseBindingMs] }),
            ("ObjC setup", { $0[.objcSetupMs] }),
            ("initializers", { $0[.initializerMs] }),
            (
                itemised ? Self.otherPreMain : Self.wholePreMain,
                { s in
                    guard let main = s[.mainMs] else { return nil }
                    // Without dyld statistics (iOS 15+) the whole start → main stretch is this phase;
                    // with them, a launch that lacks dyld's total cannot tell its rest apart.
                    guard let premain = s[.totalPremainMs] else { return itemised ? nil : main }
                    return main - premain
                }
            ),
            ("main → didFinishLaunching", { s in Self.difference(s[.didFinishLaunchingMs], s[.mainMs]) }),
            ("didFinishLaunching → first frame", { s in Self.difference(s[.firstFrameMs], s[.didFinishLaunchingMs]) }),
        ]
        phases = definitions.compactMap { name, length in
            let values = measured.compactMap(length).filter(\.isFinite).sorted()
            guard !values.isEmpty else { return nil }
            // A negative stretch (markers racing dyld's rounding) is drawn as 0 wide, never backwards.
            return Phase(
                name: name, medianMs: Swift.max(0, Percentile.of(sorted: values, fraction: 0.5)), n: values.count)
        }
    }

    /// Process start → `main` minus dyld's total, when dyld itemised pre-main.
    static let otherPreMain = "other pre-main (not itemised)"
    /// Process start → `main`, when dyld printed no phases (iOS 15+).
    static let wholePreMain = "pre-main (start → main)"

    /// exec → dyld's first instruction (kdebug only).
    static let processCreation = "process creation"
    /// dyld building the launch closure, on the first launch after an install (kdebug only).
    static let closureBuild = "launch closure build"

    /// Every phase name in launch order (for legends).
    package static let names = [
        processCreation, closureBuild, "dylib loading", "rebase/binding", "ObjC setup", "initializers", otherPreMain,
        wholePreMain,
        "main → didFinishLaunching", "didFinishLaunching → first frame",
    ]

    /// The sum of the phase medians (the bar's length).
    package var totalMs: Double { phases.reduce(0) { $0 + $1.medianMs } }

    private static func difference(_ end: Double?, _ start: Double?) -> Double? {
        guard let end, let start else { return nil }
        return end - start
    }
}
