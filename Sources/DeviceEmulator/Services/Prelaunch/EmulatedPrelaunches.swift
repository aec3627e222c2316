import Foundation
import LaunchBench
import NIOCore

/// The prelaunch fault: the phone launches an app by itself right after an install, as iOS 15+'s `dasd` asks
/// runningboardd to (a "DAS Prewarm launch", or a "DAS DYLD3 Closure Generation" for a new install). What it
/// writes is what a phone writes, from the sources that say it:
/// - the device log: runningboardd's `Executing launch request for application<BUNDLE> (REASON)` (seen in
///   Console with `DAS Prewarm launch`, blbnv/wwdc-pre-warming-samples README.md; the closure reason and the
///   relay's prefix are unverified);
/// - the kernel trace: the app's exec and dyld's events as a launch writes them (`KdebugLaunchEvents`). A
///   prewarm runs dyld, the initializers and `main` (dyld has no prewarm branch: dyld-1378 `dyld/dyldMain.cpp`
///   runs the initializers at :983 and ends `LAUNCH_EXECUTABLE` at :1011 before calling main; UIKit then holds
///   it before `UIApplicationMain`), so no first frame; a closure generation (`DYLD_JUST_BUILD_CLOSURE`) builds
///   the closure (:941) and exits at :960, before the initializers and the end of `LAUNCH_EXECUTABLE`.
/// The app's next launch is then warm (file cache, closure), as on a phone. The prelaunched process is not left
/// running (a phone keeps a prewarmed one suspended; unverified what a launch then does with it).
package final class EmulatedPrelaunches: Sendable {
    /// Why the phone launched the app: runningboardd's words.
    package enum Reason: String, Sendable, CaseIterable {
        case prewarm = "DAS Prewarm launch"
        case closureGeneration = "DAS DYLD3 Closure Generation"
    }

    /// One prelaunch the phone made.
    package struct Made: Sendable, Hashable {
        package var bundleID: String
        package var reason: Reason
        package var pid: Int
    }

    private let planned = Locked<[String: [Int: Reason]]>([:])
    private let history = Locked<[Made]>([])

    /// After install number `install` (1-based, counted per bundle id like installation_proxy counts them) of
    /// `bundleID`, the phone prelaunches it for `reason`.
    package func schedule(_ reason: Reason, bundleID: String, afterInstall install: Int) {
        planned.withLock { $0[bundleID, default: [:]][install] = reason }
    }

    /// The prelaunches made so far, oldest first.
    package var made: [Made] { history.withLock { $0 } }

    /// installation_proxy finished install `number` of `app`: the scheduled prelaunch, if any, runs now.
    func installed(_ app: InstalledApp, number: Int, device: EmulatedDevice, lab: EmulatedLab, seed: UInt64) {
        device.closures.installed(app.bundleID)
        guard let reason = planned.withLock({ $0[app.bundleID]?[number] }) else { return }
        prelaunch(app, reason: reason, device: device, lab: lab, seed: seed)
    }

    /// Launches `app` for `reason` now: the log line, then the trace of a launch that already ran its dyld
    /// part (its events are stamped before now and sent at once, so a client reads them before it can start
    /// a launch of its own after the install).
    func prelaunch(_ app: InstalledApp, reason: Reason, device: EmulatedDevice, lab: EmulatedLab, seed: UInt64) {
        guard let version = device.osVersion else { return }
        let services = device.services
        let (number, kind, moment) = services.beginMomentLaunch(app.bundleID)
        var planner = LaunchPlanner(
            productType: device.spec.productType, osVersion: version, udid: device.udid,
            labSeed: services.seed ?? seed)
        planner.device = moment
        var plan = planner.plan(app: app, environment: [:], kind: kind, launchNumber: number)
        plan.firstFrameMs = nil  // held before UIApplicationMain: no frame
        device.syslogRelay.log(
            "Executing launch request for application<\(app.bundleID)> (\(reason.rawValue))", process: "runningboardd",
            pid: 33, deviceName: device.name)
        history.withLock { $0.append(Made(bundleID: app.bundleID, reason: reason, pid: plan.pid)) }
        // dyld builds the closure whether or not a session watches.
        let buildsClosure = device.closures.build(app.bundleID, cold: kind == .cold, launchNumber: number)
        let taps = device.serviceState(KdebugTaps.self) { KdebugTaps() }
        guard !taps.isEmpty else { return }
        let events = KdebugLaunchEvents(plan: plan, osVersion: version, buildsClosure: buildsClosure)
        let draft = events.timeline(execTick: 0)
        let span = UInt64(draft.endMs * 1000) * KdebugLaunchEvents.ticksPerMicrosecond
        let now = MachClock.now(lab: lab)
        var records = events.timeline(execTick: now &- min(now, span + 1000)).records
        if reason == .closureGeneration {
            // dyld exits after building the closure: no initializer ran, LAUNCH_EXECUTABLE never ended.
            records.removeAll { record in
                record.debugID.eventID == .dyldStaticInitializer
                    || (record.debugID.eventID == .dyldLaunchExecutable && record.debugID.function == .end
                        && record.threadID == events.threadID)
            }
        }
        taps.publish(records)
    }
}

/// Which installed apps have had their launch closure built since their install: dyld builds it on the first
/// launch after an install and keeps it on disk, so neither a restart nor a later launch builds it again,
/// unless the OS or the shared cache changed (``rebuild(_:atLaunch:)``).
package final class EmulatedClosures: Sendable {
    private let built = Locked<Set<String>>([])
    private let rebuilds = Locked<[String: Set<Int>]>([:])

    /// Launch `number` of `bundleID` (counted as the launch faults count them) finds its closure out of date and
    /// builds it again, as after an iOS update.
    package func rebuild(_ bundleID: String, atLaunch number: Int) {
        _ = rebuilds.withLock { $0[bundleID, default: []].insert(number) }
    }

    /// A new install: the next launch builds the closure.
    func installed(_ bundleID: String) {
        _ = built.withLock { $0.remove(bundleID) }
    }

    /// Whether a launch of `bundleID` (cold on the device: the first since install or restart) builds the
    /// closure now.
    func build(_ bundleID: String, cold: Bool, launchNumber: Int) -> Bool {
        if rebuilds.withLock({ $0[bundleID]?.remove(launchNumber) != nil }) { return true }
        return cold && built.withLock { $0.insert(bundleID).inserted }
    }
}

extension EmulatedDevice {
    /// The device's scheduled prelaunches (the prelaunch fault).
    package var prelaunches: EmulatedPrelaunches { serviceState(EmulatedPrelaunches.self) { EmulatedPrelaunches() } }

    /// Which apps' launch closures are built, and the launches that rebuild one.
    package var closures: EmulatedClosures { serviceState(EmulatedClosures.self) { EmulatedClosures() } }
}
