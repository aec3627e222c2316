import Foundation

/// What the device services of one emulated iPhone remember: installed apps, launch counters
/// (cold vs warm), and the per-device switches (locked, boot delay, seed). Survives detach/attach and
/// restart like a phone's storage; a restart only makes every app's next launch cold again.
public final class DeviceServiceState: @unchecked Sendable {
    private let lock = NSLock()
    private var apps: [String: InstalledApp] = [:]
    private var launchCounts: [String: Int] = [:]
    private var installCounts: [String: Int] = [:]
    private var warmApps: Set<String> = []
    private var _isLocked = false
    private var _bootSeconds: Double = 3
    private var _seed: UInt64?
    private var _installFailure: InstallFailure?
    private var _installDelayMs: Double = 0
    private var _isDebugserverWedged = false
    private var launches: [EmulatedLaunch] = []
    private var activities: [DeviceActivity] = []

    /// The AFC root (real `/private/var/mobile/Media`); `PublicStaging` lives here.
    public let mediaRoot: URL

    public init(mediaRoot: URL) {
        self.mediaRoot = mediaRoot
        try? FileManager.default.createDirectory(at: mediaRoot, withIntermediateDirectories: true)
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: - Switches

    /// A locked device refuses launches (`qLaunchSuccess` → `E…device was not, or could not be, unlocked`).
    public var isLocked: Bool {
        get { locked { _isLocked } }
        set { locked { _isLocked = newValue } }
    }

    /// Emulated seconds a restart keeps the device away (default 3; scaled by the lab's time scale).
    public var bootSeconds: Double {
        get { locked { _bootSeconds } }
        set { locked { _bootSeconds = max(0, newValue) } }
    }

    /// Seed of this device's noise and faults when the app's profile sets none (default: the lab's).
    public var seed: UInt64? {
        get { locked { _seed } }
        set { locked { _seed = newValue } }
    }

    /// Refuse every install on this device with this failure (e.g. to test install-failed handling
    /// without a special bundle); `nil` (default) installs normally.
    public var installFailure: InstallFailure? {
        get { locked { _installFailure } }
        set { locked { _installFailure = newValue } }
    }

    /// Extra emulated ms spread over every install's status messages on this device (a slow device),
    /// added to the app profile's `install.delayMs`. Default 0.
    public var installDelayMs: Double {
        get { locked { _installDelayMs } }
        set { locked { _installDelayMs = max(0, newValue) } }
    }

    /// A wedged debugserver: lockdown still starts it and the connection opens, but it never answers a
    /// packet (the client's 1-s receive ticks see nothing, forever). Default false.
    public var isDebugserverWedged: Bool {
        get { locked { _isDebugserverWedged } }
        set { locked { _isDebugserverWedged = newValue } }
    }

    // MARK: - Apps

    /// Installed apps, by bundle id.
    public var installedApps: [String: InstalledApp] { locked { apps } }

    public func app(_ bundleID: String) -> InstalledApp? { locked { apps[bundleID] } }

    /// Installs (or replaces) an app: its next launch is cold.
    func install(_ app: InstalledApp) {
        locked {
            apps[app.bundleID] = app
            warmApps.remove(app.bundleID)
        }
    }

    /// Counts an install attempt of `bundleID`; returns its 1-based number.
    func nextInstallNumber(_ bundleID: String) -> Int {
        locked {
            installCounts[bundleID, default: 0] += 1
            return installCounts[bundleID]!
        }
    }

    @discardableResult
    func uninstall(_ bundleID: String) -> InstalledApp? {
        locked {
            warmApps.remove(bundleID)
            return apps.removeValue(forKey: bundleID)
        }
    }

    /// The app whose executable is `path` (argv[0] of a debugserver launch).
    func app(executablePath path: String) -> InstalledApp? {
        locked { apps.values.first { $0.executablePath == path } }
    }

    /// Registers a launch: its 1-based number and whether it is cold (first since install or restart).
    func beginLaunch(_ bundleID: String) -> (number: Int, kind: LaunchKindName) {
        locked {
            launchCounts[bundleID, default: 0] += 1
            let kind: LaunchKindName = warmApps.contains(bundleID) ? .warm : .cold
            warmApps.insert(bundleID)
            return (launchCounts[bundleID]!, kind)
        }
    }

    /// Every launch started on this device, oldest first.
    public var launchHistory: [EmulatedLaunch] { locked { launches } }

    func recordLaunch(_ launch: EmulatedLaunch) {
        locked { launches.append(launch) }
    }

    /// Every installd command and app process this device finished, in the order they finished, with the
    /// real time each kept the device busy: the device's own share of a client's wall time.
    public var activityHistory: [DeviceActivity] { locked { activities } }

    /// Real seconds the device was busy with the activities that started at or after `date`.
    public func busySeconds(since date: Date = .distantPast) -> Double {
        locked { activities.filter { $0.startedAt >= date }.reduce(0) { $0 + $1.seconds } }
    }

    func recordActivity(_ activity: DeviceActivity) {
        locked { activities.append(activity) }
    }

    /// A restart: every app's next launch is cold.
    func didRestart() {
        locked { warmApps.removeAll() }
    }
}
