/// What a `LaunchLogParser` has seen so far, for deciding when a live launch is over.
/// Cumulative since the parser was created (or last finished).
package struct LaunchLogProgress: Sendable, Equatable {
    /// A summary, details or old statistics block has ended (its last line was seen).
    package var statisticsComplete: Bool
    /// App markers seen so far, by name (the first value of a name wins): ms since process start.
    package var markers: [String: Double]
    /// `[launchbench] done` was seen.
    package var done: Bool

    /// Progress as given (nothing seen by default).
    package init(statisticsComplete: Bool = false, markers: [String: Double] = [:], done: Bool = false) {
        self.statisticsComplete = statisticsComplete
        self.markers = markers
        self.done = done
    }
}
