import Foundation
import LaunchBench
import NIOCore

/// What the device services of one emulated iPhone remember: installed apps, launch counters
/// (cold vs warm), and the per-device switches (locked, boot delay, seed). Survives detach/attach and
/// restart like a phone's storage; a restart only makes every app's next launch cold again.
package final class DeviceServiceState: Sendable {
    private struct State {
        var apps: [String: InstalledApp] = [:]
        var launchCounts: [String: Int] = [:]
        var installCounts: [String: Int] = [:]
        var warmApps: Set<String> = []
        var isLocked = false
        var bootSeconds: Double = 3
        var seed: UInt64?
        var installFailure: InstallFailure?
        var installDelayMs: Double = 0
        var isDebugserverWedged = false
        var developerDiskImageMounted = true
        var trustsAppDevelopers = true
        var processControlChannelDrops = 0
        var coreDeviceProxyRefusal: String?
        var launches: [EmulatedLaunch] = []
        var activities: [DeviceActivity] = []
        var start = 1
        var launchesSinceStart = 0
        var variation: PhoneVariation?
        var uikitFrames: UIKitFrameEvents?
    }

    private let state = Locked(State())
    private let tunnels = Locked([ObjectIdentifier: any Channel]())
    /// Battery, charging, temperature and free storage (the hot-phone fault); survives restarts.
    package let conditions = EmulatedConditions()

    /// The AFC root (real `/private/var/mobile/Media`); `PublicStaging` lives here.
    package let mediaRoot: URL

    package init(mediaRoot: URL) {
        self.mediaRoot = mediaRoot
        try? FileManager.default.createDirectory(at: mediaRoot, withIntermediateDirectories: true)
    }

    // MARK: - Switches

    /// A locked device refuses launches (`qLaunchSuccess` → `E…device was not, or could not be, unlocked`).
    package var isLocked: Bool {
        get { state.withLock { $0.isLocked } }
        set { state.withLock { $0.isLocked = newValue } }
    }

    /// Emulated seconds a restart keeps the device away (default 3; scaled by the lab's time scale).
    package var bootSeconds: Double {
        get { state.withLock { $0.bootSeconds } }
        set { state.withLock { $0.bootSeconds = max(0, newValue) } }
    }

    /// Seed of this device's noise and faults when the app's profile sets none (default: the lab's).
    package var seed: UInt64? {
        get { state.withLock { $0.seed } }
        set { state.withLock { $0.seed = newValue } }
    }

    /// The phone's run offset, drift and the like (`launchbench emulator --run-offset …`); an app profile's
    /// `variation` fields win. `nil` (default): none.
    package var variation: PhoneVariation? {
        get { state.withLock { $0.variation } }
        set { state.withLock { $0.variation = newValue } }
    }

    /// How every app's UIKit sends Initial Frame Rendering's events on this phone (`launchbench emulator
    /// --stray-frame-ends N`: ENDs before the BEGIN, as some apps do on real phones); an app profile's
    /// `uikitFrames` fields win. `nil` (default): once and in order.
    package var uikitFrames: UIKitFrameEvents? {
        get { state.withLock { $0.uikitFrames } }
        set { state.withLock { $0.uikitFrames = newValue } }
    }

    /// Refuse every install on this device with this failure (e.g. to test install-failed handling
    /// without a special bundle); `nil` (default) installs normally.
    package var installFailure: InstallFailure? {
        get { state.withLock { $0.installFailure } }
        set { state.withLock { $0.installFailure = newValue } }
    }

    /// Extra emulated ms spread over every install's status messages on this device (a slow device),
    /// added to the app profile's `install.delayMs`. Default 0.
    package var installDelayMs: Double {
        get { state.withLock { $0.installDelayMs } }
        set { state.withLock { $0.installDelayMs = max(0, newValue) } }
    }

    /// A wedged debugserver: lockdown still starts it and the connection opens, but it never answers a
    /// packet (the client's 1-s receive ticks see nothing, forever). Default false.
    package var isDebugserverWedged: Bool {
        get { state.withLock { $0.isDebugserverWedged } }
        set { state.withLock { $0.isDebugserverWedged = newValue } }
    }

    /// iOS 17+: whether the Developer Disk Image is mounted. Without it the tunnel's RemoteServiceDiscovery
    /// lists no debugproxy (as a real phone whose DDI is not mounted is believed to; unverified). Default true.
    package var developerDiskImageMounted: Bool {
        get { state.withLock { $0.developerDiskImageMounted } }
        set { state.withLock { $0.developerDiskImageMounted = newValue } }
    }

    /// Whether the user trusted the developer profile the installed apps are signed with (Settings > General >
    /// VPN & Device Management). When false FrontBoard refuses their launches (Security). Default true.
    package var trustsAppDevelopers: Bool {
        get { state.withLock { $0.trustsAppDevelopers } }
        set { state.withLock { $0.trustsAppDevelopers = newValue } }
    }

    /// How many of the next processcontrol launches have their channel cancelled by the phone right after the
    /// app's first write (`_channelCanceled:`): the client hears nothing more of them. Which phone does this, and
    /// when, is unknown; it stands for a processcontrol stream lost while the kernel trace goes on. Default 0.
    package var processControlChannelDrops: Int {
        get { state.withLock { $0.processControlChannelDrops } }
        set { state.withLock { $0.processControlChannelDrops = max(0, newValue) } }
    }

    /// Takes one of ``processControlChannelDrops``: whether this launch's channel is to be cancelled.
    func takeProcessControlChannelDrop() -> Bool {
        state.withLock { state in
            guard state.processControlChannelDrops > 0 else { return false }
            state.processControlChannelDrops -= 1
            return true
        }
    }

    /// iOS 17.4+: refuse `StartService` of CoreDeviceProxy with this lockdown error (e.g. `InvalidService`,
    /// `PasswordProtected`), so no tunnel can be made; `nil` (default) offers it.
    package var coreDeviceProxyRefusal: String? {
        get { state.withLock { $0.coreDeviceProxyRefusal } }
        set { state.withLock { $0.coreDeviceProxyRefusal = newValue } }
    }

    // MARK: - Apps

    /// Installed apps, by bundle id.
    package var installedApps: [String: InstalledApp] { state.withLock { $0.apps } }

    package func app(_ bundleID: String) -> InstalledApp? { state.withLock { $0.apps[bundleID] } }

    /// Installs (or replaces) an app: its next launch is cold.
    func install(_ app: InstalledApp) {
        state.withLock { state in
            state.apps[app.bundleID] = app
            state.warmApps.remove(app.bundleID)
        }
    }

    /// Counts an install attempt of `bundleID`; returns its 1-based number.
    func nextInstallNumber(_ bundleID: String) -> Int {
        state.withLock { state in
            state.installCounts[bundleID, default: 0] += 1
            return state.installCounts[bundleID]!
        }
    }

    @discardableResult
    func uninstall(_ bundleID: String) -> InstalledApp? {
        state.withLock { state in
            state.warmApps.remove(bundleID)
            return state.apps.removeValue(forKey: bundleID)
        }
    }

    /// The app whose executable is `path` (argv[0] of a debugserver launch).
    func app(executablePath path: String) -> InstalledApp? {
        state.withLock { $0.apps.values.first { $0.executablePath == path } }
    }

    /// Registers a launch: its 1-based number and whether it is cold (first since install or restart).
    func beginLaunch(_ bundleID: String) -> (number: Int, kind: LaunchKindName) {
        let begun = beginMomentLaunch(bundleID)
        return (begun.number, begun.kind)
    }

    /// `beginLaunch`, also placing the launch on the device (its start and launches since), for the
    /// run offset and drift of `PhoneVariation`.
    func beginMomentLaunch(_ bundleID: String) -> (number: Int, kind: LaunchKindName, moment: DeviceMoment) {
        state.withLock { state in
            state.launchCounts[bundleID, default: 0] += 1
            state.launchesSinceStart += 1
            let kind: LaunchKindName = state.warmApps.contains(bundleID) ? .warm : .cold
            state.warmApps.insert(bundleID)
            var moment = DeviceMoment(
                start: state.start, launch: state.launchesSinceStart, variation: state.variation)
            moment.thermalFactor = conditions.launchFactor
            moment.uikitFrames = state.uikitFrames
            return (state.launchCounts[bundleID]!, kind, moment)
        }
    }

    // MARK: - Tunnels

    /// Registers an open CoreDeviceProxy connection (forgotten when it closes).
    func addTunnel(_ channel: any Channel) {
        tunnels.withLock { $0[ObjectIdentifier(channel)] = channel }
        channel.closeFuture.whenComplete { [tunnels] _ in
            tunnels.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(channel)) }
        }
    }

    /// Closes every open CoreDeviceProxy tunnel while the device stays attached, as a flaky cable or a
    /// restarting `remoted` does on a real phone; returns how many were open.
    @discardableResult
    package func dropTunnels() -> Int {
        let open = tunnels.withLock { Array($0.values) }
        for channel in open { channel.close(promise: nil) }
        return open.count
    }

    /// Every launch started on this device, oldest first.
    package var launchHistory: [EmulatedLaunch] { state.withLock { $0.launches } }

    func recordLaunch(_ launch: EmulatedLaunch) {
        state.withLock { $0.launches.append(launch) }
    }

    /// Every installd command and app process this device finished, in the order they finished, with the
    /// real time each kept the device busy: the device's own share of a client's wall time.
    package var activityHistory: [DeviceActivity] { state.withLock { $0.activities } }

    /// Real seconds the device was busy with the activities that started at or after `date`.
    package func busySeconds(since date: Date = .distantPast) -> Double {
        state.withLock { $0.activities.filter { $0.startedAt >= date }.reduce(0) { $0 + $1.seconds } }
    }

    func recordActivity(_ activity: DeviceActivity) {
        state.withLock { $0.activities.append(activity) }
    }

    /// A restart: every app's next launch is cold, and the phone starts a new run offset and drift.
    func didRestart() {
        state.withLock { state in
            state.warmApps.removeAll()
            state.start += 1
            state.launchesSinceStart = 0
        }
    }
}
