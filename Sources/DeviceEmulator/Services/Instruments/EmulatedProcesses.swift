import Foundation
import LaunchBench
import NIOCore

/// The app processes processcontrol started on one device and still running, with the processcontrol
/// channels that observe each (``EmulatedDevice/serviceState(_:create:)``): a process launched on one
/// connection can be found, signalled or replaced from another, as on a phone. Each runs its
/// ``LaunchPlan`` on event-loop timers, with no debugger: its writes go to its observers as output events
/// and its end as a termination notice (``ProcessControlMessages``). The phone relays the two separately and
/// promises no order between them: ``EmulatedDevice/processControlLateOutputs`` has the notice overtake the writes.
final class EmulatedProcesses: Sendable {
    /// Where a processcontrol channel wants a process's events.
    struct Observer: Sendable {
        /// Sends one DISPATCH on the observer's channel: the selector and its auxiliary bytes.
        var send: @Sendable (_ selector: String, _ auxiliary: [UInt8]) -> Void
        /// Whether its connection published `…processcontrol.capability.terminationCallback`.
        var wantsTermination: Bool
        /// Cancels the observer's channel from the phone's side (``DeviceServiceState/processControlChannelDrops``).
        var cancel: @Sendable () -> Void = {}
    }

    private struct Running {
        var token: Int
        var pid: Int
        var bundleID: String
        var observers: Set<Int>
        var timers: [Scheduled<Void>] = []
        var launchName: String
        /// The phone cancels its observers' channels after its first write.
        var dropsChannel = false
        /// The phone relays this process's writes only after its termination notice: the writes so far, held.
        var lateOutput: [(bytes: [UInt8], machTime: UInt64)]?
        /// When the device accepted the launch request (its activity's start).
        var startedAt: Date
        var start: ContinuousClock.Instant
    }

    private struct State {
        var running: [Int: Running] = [:]
        var observers: [Int: Observer] = [:]
        var nextToken = 0
        var lateOutputLaunches = 0
        /// How long after the termination notice such a launch's held writes are relayed.
        var lateOutputDelay: Duration = .zero
        var cleanExitSignal: Int?
        var refusalAfterKill: Duration?
        /// Per bundle id: the pid SIGKILL last ended and when.
        var killed: [String: (pid: Int, at: ContinuousClock.Instant)] = [:]
    }

    private let state = Locked(State())
    private let services: DeviceServiceState

    init(services: DeviceServiceState) {
        self.services = services
    }

    /// Adds an observer; returns its key (the channel keeps it for ``observe(_:by:)`` and ``remove(observer:)``).
    func add(_ observer: Observer) -> Int {
        state.withLock { state in
            state.nextToken += 1
            state.observers[state.nextToken] = observer
            return state.nextToken
        }
    }

    /// How many of the next launches have their output relayed after their termination notice.
    var lateOutputLaunches: Int {
        get { state.withLock { $0.lateOutputLaunches } }
        set { state.withLock { $0.lateOutputLaunches = max(0, newValue) } }
    }

    /// The crashing-signal field of a clean exit's termination notice: `nil` (the default) as
    /// DTProcessControlService sends it (its pid-death handler passes the exit code as an NSNumber and nil for the
    /// signal: `DTProcessControlService.mm`, iOS 26.1, decompiled, EthanArbuckle/iPhone18-3_26.1_23B85_Restore), or
    /// 0, the other encoding a client may meet (pymobiledevice3 11.45.0 `process_control.py` logs both fields, each
    /// `Optional[int]`; Frida's `dtx.vala` reads a number from one field and takes the other as absent).
    var cleanExitSignal: Int? {
        get { state.withLock { $0.cleanExitSignal } }
        set { state.withLock { $0.cleanExitSignal = newValue } }
    }

    /// For this long after SIGKILL ended an app, processcontrol refuses to launch it again ("already running",
    /// ``DeviceProcessControlError/alreadyRunning(executable:pid:)``): the killed instance is still terminating. The
    /// service's own wait (0.5 s up to eight times) is not emulated: this stands for a refusal that outlasted it, as
    /// go-ios met on phones (77e57ca). `nil` (default): never.
    var refusalAfterKill: Duration? {
        get { state.withLock { $0.refusalAfterKill } }
        set { state.withLock { $0.refusalAfterKill = newValue } }
    }

    /// The pid of `bundleID`'s instance SIGKILL ended less than ``refusalAfterKill`` ago, if any.
    func stillTerminating(_ bundleID: String) -> Int? {
        state.withLock { state in
            guard let window = state.refusalAfterKill, let kill = state.killed[bundleID],
                ContinuousClock.now - kill.at < window
            else { return nil }
            return kill.pid
        }
    }

    /// How long after the termination notice the held writes come.
    var lateOutputDelay: Duration {
        get { state.withLock { $0.lateOutputDelay } }
        set { state.withLock { $0.lateOutputDelay = max(.zero, newValue) } }
    }

    /// Forgets an observer (its channel closed); the processes it watched run on.
    func remove(observer: Int) {
        state.withLock { state in
            state.observers[observer] = nil
            for pid in state.running.keys { state.running[pid]?.observers.remove(observer) }
        }
    }

    /// Starts `plan` for `bundleID`, observed by `observer`; its writes and its end follow the plan's
    /// emulated times. A running instance of the app is ended first with SIGKILL (`KillExisting`).
    /// - Parameter accepted: when the device took the request: its activity counts from there.
    func launch(
        _ plan: LaunchPlan, bundleID: String, observer: Int, lab: EmulatedLab, eventLoop: any EventLoop,
        acceptedAt accepted: (date: Date, instant: ContinuousClock.Instant)
    ) {
        if let existing = pid(of: bundleID) { signal(existing, signal: 9) }
        let token = state.withLock { state in
            state.nextToken += 1
            state.running[plan.pid] = Running(
                token: state.nextToken, pid: plan.pid, bundleID: bundleID, observers: [observer],
                launchName: plan.kind.rawValue, dropsChannel: services.takeProcessControlChannelDrop(),
                startedAt: accepted.date, start: accepted.instant)
            if state.lateOutputLaunches > 0 {
                state.lateOutputLaunches -= 1
                state.running[plan.pid]?.lateOutput = []
            }
            return state.nextToken
        }
        var timers: [Scheduled<Void>] = []
        for output in plan.outputs {
            timers.append(
                eventLoop.scheduleTask(in: Self.delay(output.atMs, lab)) { [self] in
                    write(output.bytes, pid: plan.pid, token: token, at: MachClock.now(lab: lab))
                })
        }
        let end: (exitCode: Int?, signal: Int?)? =
            switch plan.ending {
            case .exit(let status): (status, status == 0 ? cleanExitSignal : nil)
            // No debugger holds a crashed process stopped: the signal ends it.
            case .signal(let signal), .stop(let signal): (nil, signal)
            case .running: nil
            }
        if let end {
            timers.append(
                eventLoop.scheduleTask(in: Self.delay(plan.endsAtMs, lab)) { [self] in
                    finish(pid: plan.pid, token: token, exitCode: end.exitCode, signal: end.signal)
                })
        }
        let stale = state.withLock { state -> [Scheduled<Void>] in
            guard state.running[plan.pid]?.token == token else { return timers }  // killed meanwhile
            state.running[plan.pid]?.timers = timers
            return []
        }
        for timer in stale { timer.cancel() }
    }

    /// The pid of the running instance of `bundleID`, if any.
    func pid(of bundleID: String) -> Int? {
        state.withLock { $0.running.values.first { $0.bundleID == bundleID }?.pid }
    }

    /// Sends the observer the events of `pid` from now on; false when no such process runs.
    func observe(_ pid: Int, by observer: Int) -> Bool {
        state.withLock { state in
            guard state.running[pid] != nil else { return false }
            state.running[pid]?.observers.insert(observer)
            return true
        }
    }

    func stopObserving(_ pid: Int, by observer: Int) {
        _ = state.withLock { $0.running[pid]?.observers.remove(observer) }
    }

    /// Ends `pid` with `signal` (its pending writes die with it); false when no such process runs.
    @discardableResult
    func signal(_ pid: Int, signal: Int) -> Bool {
        guard let token = state.withLock({ $0.running[pid]?.token }) else { return false }
        return finish(pid: pid, token: token, exitCode: nil, signal: signal)
    }

    private func write(_ bytes: [UInt8], pid: Int, token: Int, at machTime: UInt64) {
        let (observers, drops) = state.withLock { state -> ([Observer], Bool) in
            guard let process = state.running[pid], process.token == token else { return ([], false) }
            if process.lateOutput != nil {
                state.running[pid]?.lateOutput?.append((bytes, machTime))
                return ([], false)
            }
            let observers = process.observers.compactMap { state.observers[$0] }
            guard process.dropsChannel else { return (observers, false) }
            // The cancelled channels observe nothing any more.
            for key in process.observers {
                state.observers[key] = nil
                for other in state.running.keys { state.running[other]?.observers.remove(key) }
            }
            return (observers, true)
        }
        guard !observers.isEmpty else { return }
        let auxiliary = ProcessControlMessages.output(bytes, pid: pid, machTime: machTime)
        for observer in observers {
            observer.send(ProcessControlMessages.outputSelector, auxiliary)
            if drops { observer.cancel() }
        }
    }

    @discardableResult
    private func finish(pid: Int, token: Int, exitCode: Int?, signal: Int?) -> Bool {
        let ended = state.withLock { state -> (Running, [Observer])? in
            guard let process = state.running[pid], process.token == token else { return nil }
            state.running[pid] = nil
            if signal == 9 { state.killed[process.bundleID] = (pid, ContinuousClock.now) }
            return (process, process.observers.compactMap { state.observers[$0] })
        }
        guard let (process, observers) = ended else { return false }
        for timer in process.timers { timer.cancel() }
        services.recordActivity(
            DeviceActivity(
                kind: .launch, name: process.launchName, bundleID: process.bundleID, startedAt: process.startedAt,
                seconds: (ContinuousClock.now - process.start).totalSeconds))
        let auxiliary = ProcessControlMessages.termination(pid: pid, exitCode: exitCode, signal: signal)
        for observer in observers where observer.wantsTermination {
            observer.send(ProcessControlMessages.terminationSelector, auxiliary)
        }
        let late = (process.lateOutput ?? []).map {
            ProcessControlMessages.output($0.bytes, pid: pid, machTime: $0.machTime)
        }
        let relay: @Sendable () -> Void = {
            for output in late {
                for observer in observers { observer.send(ProcessControlMessages.outputSelector, output) }
            }
        }
        let delay = state.withLock { $0.lateOutputDelay }
        if late.isEmpty || delay <= .zero {
            relay()
        } else {
            DispatchQueue.global().asyncAfter(deadline: .now() + delay.totalSeconds, execute: relay)
        }
        return true
    }

    private static func delay(_ emulatedMs: Double, _ lab: EmulatedLab) -> TimeAmount {
        .nanoseconds(lab.realTime(ofEmulatedMs: emulatedMs).nanoseconds)
    }
}

extension EmulatedDevice {
    /// The next `n` apps processcontrol launches on this device have their writes relayed after their termination
    /// notice, as a phone may (output and the notice come separately, in no promised order).
    package var processControlLateOutputs: Int {
        get { processes.lateOutputLaunches }
        set { processes.lateOutputLaunches = newValue }
    }

    /// The crashing-signal field of a clean exit's termination notice: `nil` (default) or 0
    /// (``EmulatedProcesses/cleanExitSignal``).
    package var processControlCleanExitSignal: Int? {
        get { processes.cleanExitSignal }
        set { processes.cleanExitSignal = newValue }
    }

    /// For this long after SIGKILL ended an app, processcontrol refuses to launch it again, "already running"
    /// (``EmulatedProcesses/refusalAfterKill``); `nil` (default): never.
    package var processControlRefusalAfterKill: Duration? {
        get { processes.refusalAfterKill }
        set { processes.refusalAfterKill = newValue }
    }

    /// How long after the termination notice the writes of ``processControlLateOutputs``' launches come
    /// (default: at once). How late a real phone's can come is unmeasured (Documentation/RealPhoneStatus.md).
    package var processControlLateOutputDelay: Duration {
        get { processes.lateOutputDelay }
        set { processes.lateOutputDelay = newValue }
    }

    private var processes: EmulatedProcesses {
        let services = services
        return serviceState(EmulatedProcesses.self) { EmulatedProcesses(services: services) }
    }
}
