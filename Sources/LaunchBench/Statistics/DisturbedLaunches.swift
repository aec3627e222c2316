/// A device's launches the phone disturbed, as a summary names them: a cold launch after a prelaunch (warm
/// file cache, built closure) and a launch on which dyld rebuilt its closure (an OS or cache change). Set-aside
/// launches are kept out of the statistics and the gate; the reports and the gate's notes say which they were.
package struct DisturbedLaunches: Sendable, Hashable {
    /// One disturbed launch.
    package struct Entry: Sendable, Hashable {
        package var iteration: Int
        package var kind: LaunchKind
        package var launchIndex: Int
        /// What disturbed it, in words.
        package var what: String
    }

    /// Kept out of the statistics (`set_aside`).
    package private(set) var setAside: [Entry] = []
    /// Named but counted: `--count-prelaunched`, or a warm launch after a prelaunch (warm either way).
    package private(set) var counted: [Entry] = []

    /// None yet.
    package init() {}

    /// Notes `sample` when something disturbed it.
    mutating func add(_ sample: Sample) {
        var what: [String] = []
        if let prelaunch = sample.prelaunch { what.append("after \(prelaunch.description)") }
        if sample.closureRebuilt { what.append("dyld rebuilt its launch closure (BUILD_CLOSURE)") }
        guard !what.isEmpty else { return }
        let entry = Entry(
            iteration: sample.iteration, kind: sample.kind, launchIndex: sample.launchIndex,
            what: what.joined(separator: "; "))
        if sample.setAside { setAside.append(entry) } else { counted.append(entry) }
    }

    /// How many launches were set aside.
    package var setAsideCount: Int { setAside.count }

    /// The sentences every report shows under the device (none when nothing was disturbed).
    package var remarks: [String] {
        var remarks: [String] = []
        if !setAside.isEmpty {
            remarks.append(
                "\(Self.count(setAside.count)) set aside, not in the statistics (--count-prelaunched counts them): "
                    + Self.list(setAside) + ".")
        }
        if !counted.isEmpty {
            remarks.append("\(Self.count(counted.count)) disturbed but counted: " + Self.list(counted) + ".")
        }
        return remarks
    }

    private static func count(_ n: Int) -> String { n == 1 ? "1 launch" : "\(n) launches" }

    /// The first ten by name, then how many more.
    private static func list(_ entries: [Entry]) -> String {
        let shown = entries.prefix(10).map { entry in
            let which = entry.kind == .cold ? "cold" : "warm #\(entry.launchIndex)"
            return "iteration \(entry.iteration) \(which) \(entry.what)"
        }
        let more = entries.count - shown.count
        return shown.joined(separator: "; ") + (more > 0 ? "; and \(more) more" : "")
    }
}
