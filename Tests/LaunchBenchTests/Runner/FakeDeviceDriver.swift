import Foundation
import LaunchBench

/// An in-memory `DeviceDriver`: each device runs a scripted app; every call is recorded.
final class FakeDeviceDriver: DeviceDriver, Sendable {
    /// What the emulated app does after `continue`.
    struct AppScript: Sendable {
        /// Printed in order, each after its delay.
        var chunks: [(delay: Duration, text: String)]
        var ending: Ending

        init(_ chunks: [(delay: Duration, text: String)] = [], then ending: Ending = .keepRunning) {
            self.chunks = chunks
            self.ending = ending
        }

        /// Prints everything at once, then keeps running until the harness ends it.
        static func printing(_ text: String, then ending: Ending = .keepRunning) -> AppScript {
            AppScript([(.zero, text)], then: ending)
        }
    }

    enum Ending: Sendable {
        case keepRunning
        case exit(Int)
        case crash(signal: Int)
        case killed(signal: Int)
        case fail(FakeDriverError)
    }

    /// Which launch the script is asked about.
    struct LaunchContext: Sendable {
        var udid: String
        /// 1-based count of launches on this device.
        var number: Int
        /// First launch since the last install or restart.
        var isCold: Bool
        var request: LaunchRequest
    }

    struct LaunchLogEntry: Sendable {
        var udid: String
        var request: LaunchRequest
        var result: LaunchTermination?
    }

    /// Everything the driver remembers; every call reads and changes it in one `withLock`.
    struct State {
        var devices: [DeviceInfo]
        var launchCounts: [String: Int] = [:]
        var coldPending: Set<String> = []
        var installFailures: [String: Set<Int>] = [:]
        var refusals: Set<String> = []
        var unreadable: Set<String> = []
        var valuesRead: [String] = []
        var launches: [LaunchLogEntry] = []
        var uninstalls: [String] = []
        var installs: [String] = []
        var restarts: [String] = []
        var installedApps: [AppBundle] = []
    }

    private let state: Locked<State>
    private let script: @Sendable (LaunchContext) -> AppScript

    init(devices: [DeviceInfo], script: @escaping @Sendable (LaunchContext) -> AppScript) {
        state = Locked(State(devices: devices))
        self.script = script
    }

    /// UDIDs whose values were read, in order.
    var valuesRead: [String] { state.withLock { $0.valuesRead } }
    /// Every launch, in order, with its result once it ended.
    var launches: [LaunchLogEntry] { state.withLock { $0.launches } }
    /// Apps installed, in order.
    var installedApps: [AppBundle] { state.withLock { $0.installedApps } }

    /// Makes the `n`th install (1-based) on `udid` fail with an installd-like message.
    func failInstall(number: Int, on udid: String) {
        _ = state.withLock { $0.installFailures[udid, default: []].insert(number) }
    }

    /// Makes reading `udid`'s values fail, as while the device is restarting.
    func makeUnreadable(_ udid: String) {
        _ = state.withLock { $0.unreadable.insert(udid) }
    }

    /// Makes debugserver refuse every launch on `udid`.
    func refuseLaunches(on udid: String) {
        _ = state.withLock { $0.refusals.insert(udid) }
    }

    func launchRequests(on udid: String) -> [LaunchRequest] {
        state.withLock { $0.launches.filter { $0.udid == udid }.map(\.request) }
    }

    func launchResults(on udid: String) -> [LaunchTermination?] {
        state.withLock { $0.launches.filter { $0.udid == udid }.map(\.result) }
    }

    /// How many of `calls` (`\.installs`, `\.uninstalls`, `\.restarts`…) went to `udid`.
    func count(_ calls: KeyPath<State, [String]>, on udid: String) -> Int {
        state.withLock { $0[keyPath: calls].filter { $0 == udid }.count }
    }

    // MARK: DeviceDriver

    func listDevices(reading udids: [String]?) async throws -> DeviceListing {
        state.withLock { state in
            let read = state.devices.filter { device in
                udids?.contains { $0.lowercased() == device.udid.lowercased() } ?? true
            }
            state.valuesRead += read.map(\.udid)
            let unreadable = state.unreadable
            return DeviceListing(
                devices: read.filter { !unreadable.contains($0.udid) },
                unreadable: read.filter { unreadable.contains($0.udid) }.map {
                    UnreadableDevice(udid: $0.udid, reason: "lockdownd refused the connection (fake)")
                },
                attached: state.devices.map(\.udid))
        }
    }

    func uninstall(bundleID: String, on udid: String) async throws {
        try checkAttached(udid)
        state.withLock { $0.uninstalls.append(udid) }
    }

    func install(_ app: AppBundle, on udid: String, timeout: Duration) async throws {
        try checkAttached(udid)
        let failure = state.withLock { state -> Bool in
            state.installs.append(udid)
            state.installedApps.append(app)
            let number = state.installs.filter { $0 == udid }.count
            if state.installFailures[udid]?.contains(number) == true { return true }
            state.coldPending.insert(udid)
            return false
        }
        if failure {
            throw FakeDriverError(kind: .installFailed, text: "installd: ApplicationVerificationFailed (fake)")
        }
    }

    func restart(_ udid: String, timeout: Duration) async throws {
        try checkAttached(udid)
        state.withLock { state in
            state.restarts.append(udid)
            state.coldPending.insert(udid)
        }
    }

    func launch(_ request: LaunchRequest, on udid: String, observer: any LaunchObserver) async throws
        -> LaunchTermination
    {
        try checkAttached(udid)
        let (context, refused, index) = state.withLock { state -> (LaunchContext, Bool, Int) in
            state.launchCounts[udid, default: 0] += 1
            let cold = state.coldPending.remove(udid) != nil
            state.launches.append(LaunchLogEntry(udid: udid, request: request, result: nil))
            return (
                LaunchContext(udid: udid, number: state.launchCounts[udid]!, isCold: cold, request: request),
                state.refusals.contains(udid), state.launches.count - 1
            )
        }
        if refused {
            throw FakeDriverError(
                kind: .launchRefused, text: "debugserver: the app is not signed for development (fake)")
        }
        let result = try await run(script(context), observer: observer)
        state.withLock { $0.launches[index].result = result }
        return result
    }

    private func run(_ app: AppScript, observer: any LaunchObserver) async throws -> LaunchTermination {
        let clock = ContinuousClock()
        observer.launched(at: clock.now)
        for chunk in app.chunks {
            if let stop = try await wait(chunk.delay, observer: observer) { return .endedByHarness(stop) }
            observer.output(Array(chunk.text.utf8))
            if let stop = observer.shouldEnd(at: clock.now) { return .endedByHarness(stop) }
        }
        switch app.ending {
        case .exit(let status): return .exited(status: status)
        case .crash(let signal): return .crashed(signal: signal)
        case .killed(let signal): return .signaled(signal: signal)
        case .fail(let error): throw error
        case .keepRunning:
            while true {
                if let stop = try await wait(.milliseconds(5), observer: observer) { return .endedByHarness(stop) }
            }
        }
    }

    /// Sleeps in small steps, asking the observer as a driver does between reads.
    private func wait(_ duration: Duration, observer: any LaunchObserver) async throws -> HarnessStop? {
        let clock = ContinuousClock()
        let end = clock.now + duration
        repeat {
            if let stop = observer.shouldEnd(at: clock.now) { return stop }
            let step = min(.milliseconds(5), end - clock.now)
            if step > .zero { try? await Task.sleep(for: step) }
        } while clock.now < end
        return nil
    }

    /// Removes a device: its calls then fail with `deviceLost`.
    func detach(_ udid: String) {
        state.withLock { $0.devices.removeAll { $0.udid == udid } }
    }

    private func checkAttached(_ udid: String) throws {
        guard state.withLock({ $0.devices.contains { $0.udid == udid } }) else {
            throw FakeDriverError(kind: .deviceLost, text: "device \(udid) is gone (fake)")
        }
    }
}

struct FakeDriverError: DriverError, LocalizedError, Sendable {
    var kind: DriverFailureKind
    var text: String
    var failureKind: DriverFailureKind { kind }
    var errorDescription: String? { text }
}

/// Output the way dyld and LaunchProbe print it.
enum FakeOutput {
    /// A dyld 421+ summary block (iOS 10–14), ending with its blank line.
    static func statistics(total: Double, dylib: Double, rebase: Double, objc: Double, initializer: Double) -> String {
        func line(_ label: String, _ ms: Double) -> String {
            let value = String(format: "%.2f", ms)
            let pad = ms >= 100 ? " " : ms >= 10 ? "  " : "   "
            let percent = String(format: "%.1f", ms / total * 100)
            return "\(label):\(pad)\(value) milliseconds (\(percent)%)\n"
        }
        return line("Total pre-main time", total) + line("         dylib loading time", dylib)
            + line("        rebase/binding time", rebase) + line("            ObjC setup time", objc)
            + line("           initializer time", initializer) + "           slowest intializers :\n"
            + line("             libSystem.B.dylib", initializer / 4) + "\n"
    }

    static func mark(_ name: String, _ ms: Double) -> String { "[launchbench] mark=\(name) t=\(ms)\n" }

    static let done = "[launchbench] done\n"
}
