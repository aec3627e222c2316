import Foundation

/// A launch of the app the phone made by itself before one of launchbench's (`prelaunch` in samples.jsonl):
/// iOS 15+'s `dasd` asks runningboardd to launch an app in the background, a "DAS Prewarm launch" or, after an
/// install, a "DAS DYLD3 Closure Generation". The launch after it finds a warm file cache and a built closure,
/// so a cold launch after one is not a cold launch.
package struct Prelaunch: Codable, Sendable, Hashable {
    /// Why the phone launched the app.
    package enum Kind: String, Codable, Sendable, Hashable {
        /// "DAS Prewarm launch": dyld, the initializers and `main` up to `UIApplicationMain`.
        case prewarm
        /// "DAS DYLD3 Closure Generation": dyld builds the launch closure and exits (`DYLD_JUST_BUILD_CLOSURE`).
        case closureGeneration = "closure-generation"
        /// A reason the device log named that is neither.
        case other
    }

    /// How far the prelaunch got, from dyld's kdebug events.
    package enum Reach: String, Codable, Sendable, Hashable {
        /// dyld ran, no initializer did (a closure generation: dyld-1160.6+ `dyldMain.cpp` exits before them).
        case dyld
        /// Initializers ran, dyld's `LAUNCH_EXECUTABLE` never ended: `main` was not reached.
        case initializers
        /// dyld's `LAUNCH_EXECUTABLE` ended: `main` was called.
        case main

        var phrase: String {
            switch self {
            case .dyld: "dyld only"
            case .initializers: "initializers, no main"
            case .main: "reached main"
            }
        }
    }

    /// Where it was seen.
    package enum Source: String, Codable, Sendable, Hashable {
        /// An exec of the app's executable in the run's kdebug session that launchbench did not start.
        case kdebug
        /// runningboardd's `Executing launch request for application<BUNDLE> (REASON)` in the device log.
        case deviceLog = "device-log"
    }

    package var kind: Kind
    /// runningboardd's words (`DAS Prewarm launch`), from the device log; `nil` from kdebug.
    package var reason: String?
    /// The prelaunched process, from kdebug; `nil` from the device log.
    package var pid: Int?
    /// How far it got, from kdebug; `nil` from the device log, which does not say.
    package var reached: Reach?
    /// Seconds from the prelaunch to this launch: from kdebug, device clock from exec to exec; from the device
    /// log, host clock from the line's arrival to the launch's start.
    package var secondsBefore: Double?
    /// How many prelaunches came since the app's previous launch on the device (this is the latest).
    package var count: Int
    package var source: Source

    package init(
        kind: Kind, reason: String? = nil, pid: Int? = nil, reached: Reach? = nil, secondsBefore: Double? = nil,
        count: Int = 1, source: Source
    ) {
        self.kind = kind
        self.reason = reason
        self.pid = pid
        self.reached = reached
        self.secondsBefore = secondsBefore
        self.count = count
        self.source = source
    }

    private enum CodingKeys: String, CodingKey {
        case kind, reason, pid, reached
        case secondsBefore = "seconds_before"
        case count, source
    }

    /// `a prewarm (pid 812, reached main, 4.2 s before)`: how the reports name it.
    package var description: String {
        var details: [String] = []
        if let pid { details.append("pid \(pid)") }
        if let reached { details.append(reached.phrase) }
        if let reason, kind == .other { details.append("\u{201C}\(reason)\u{201D}") }
        if let secondsBefore { details.append("\(DecimalText.fixed(secondsBefore, maxFractionDigits: 1)) s before") }
        if count > 1 { details.append("\(count) since the previous launch") }
        details.append(source == .kdebug ? "seen by kdebug" : "seen in the device log")
        let name =
            switch kind {
            case .prewarm: "a prewarm"
            case .closureGeneration: "a closure generation"
            case .other: "a prelaunch"
            }
        return "\(name) (\(details.joined(separator: ", ")))"
    }
}
