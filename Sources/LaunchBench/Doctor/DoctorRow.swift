/// One step of `launchbench doctor`'s check of a phone's chain, in the order they run.
package enum DoctorStep: String, Sendable, Hashable, CaseIterable, Codable {
    case usbmuxd = "usbmuxd reachable"
    case pairing = "paired and trusted"
    case developerMode = "Developer Mode"
    case diskImage = "Developer Disk Image"
    case lockdownServices = "lockdown services"
    case tunnel = "CoreDeviceProxy tunnel"
    case debugproxy = "RSD debugproxy"
    case dtservicehub = "RSD dtservicehub"
    case kperf = "kperf free"
    case firstMessage = "session's first message"
    case machTimeInfo = "machTimeInfo shape"
    case launch = "launch"
    case dyldEvents = "dyld events of the launch"
    case firstFrame = "first-frame code"
    case buildClosure = "BUILD_CLOSURE after install"
    case delivery = "event delivery"
    /// iOS 27+: the facts assumed from iOS 26 (`OSVersion.isNewerThanKnown`), from the rows above.
    case assumedFacts = "facts assumed from iOS 26"
    /// iOS 27+: no prelaunch before the cold launch after the reinstall (iOS 27 preloads apps' data).
    case preload = "no prelaunch before launch"
}

extension DoctorStep {
    /// Whether a run needs the step to hold, where nothing more is known (a step not checked): UIKit's first
    /// frame and dyld's closure build are facts to report, not requirements; the kdebug steps are needed only
    /// where kdebug is the pre-main source, which the doctor says per phone.
    package var neededByDefault: Bool { !Self.facts.contains(self) }

    /// Facts to report, not requirements.
    static let facts: Set<DoctorStep> = [.firstFrame, .buildClosure, .assumedFacts, .preload]

    /// The steps only a phone newer than launchbench's facts (iOS 27+) gets.
    package static let newerIOSSteps: Set<DoctorStep> = [.assumedFacts, .preload]
}

/// What a step found.
package enum DoctorState: String, Sendable, Hashable, Codable {
    case holds
    case fails
    /// Not checked (an earlier step failed, the device went away) or not knowable from this phone.
    case unknown
}

/// One row of the doctor's table: a step, what it found and, when it fails, what the user can do.
package struct DoctorRow: Sendable, Hashable, Codable {
    package var step: DoctorStep
    package var state: DoctorState
    /// What was seen, in words (a version, a count, the device's error).
    package var detail: String
    /// What to do about a failing step; `nil` when it holds or is unknown.
    package var fix: String?
    /// Whether a run needs this step to hold (the exit status counts only these).
    package var needed: Bool

    /// A row for `step`.
    package init(_ step: DoctorStep, _ state: DoctorState, _ detail: String, fix: String? = nil, needed: Bool = true) {
        self.step = step
        self.state = state
        self.detail = detail
        self.fix = fix
        self.needed = needed
    }

    /// A step that holds.
    package static func holds(_ step: DoctorStep, _ detail: String, needed: Bool = true) -> DoctorRow {
        DoctorRow(step, .holds, detail, needed: needed)
    }

    /// A step that fails, with the fix.
    package static func fails(_ step: DoctorStep, _ detail: String, fix: String, needed: Bool = true) -> DoctorRow {
        DoctorRow(step, .fails, detail, fix: fix, needed: needed)
    }

    /// A step whose outcome is not known, and why.
    package static func unknown(_ step: DoctorStep, _ detail: String, needed: Bool = true) -> DoctorRow {
        DoctorRow(step, .unknown, detail, needed: needed)
    }
}
