import Foundation
import LaunchBench
import NIOCore

/// `com.apple.instruments.server.services.processcontrol`: launches an installed app with an environment
/// and arguments, finds it by bundle id, signals it (pymobiledevice3 11.45.0's `process_control.py`, the
/// selectors it sends). The app runs at once, with no debugger: its kdebug events reach every running
/// session, its writes come back as output events and its end as a termination notice
/// (``ProcessControlMessages``) on the channel that launched it and those observing it (`startObservingPid:`,
/// as Frida and tidevice call after a launch). Whether a real phone honours the environment of an app not
/// signed for development, or launches one at all, is unverified.
final class ProcessControlChannel: InstrumentsChannel {
    static let identifier = "com.apple.instruments.server.services.processcontrol"
    static let launchSelector = "launchSuspendedProcessWithDevicePath:bundleIdentifier:environment:arguments:options:"
    static let sigkill = 9

    private let device: EmulatedDevice
    private let lab: EmulatedLab
    private let labSeed: UInt64
    private let eventLoop: any EventLoop
    private let processes: EmulatedProcesses
    private let reportsTermination: Bool
    /// This channel as an observer of processes, from its first message (the sender comes with it).
    private var observer: Int?

    init(device: EmulatedDevice, lab: EmulatedLab, labSeed: UInt64, eventLoop: any EventLoop, reportsTermination: Bool)
    {
        self.device = device
        self.lab = lab
        self.labSeed = labSeed
        self.eventLoop = eventLoop
        self.reportsTermination = reportsTermination
        let services = device.services
        self.processes = device.serviceState(EmulatedProcesses.self) { EmulatedProcesses(services: services) }
    }

    func receive(selector: String, arguments: [DTXArgument], replies: InstrumentsReplies) {
        let observer =
            self.observer
            ?? processes.add(
                .init(
                    send: replies.dispatchSender, wantsTermination: reportsTermination,
                    cancel: replies.channelCanceller))
        self.observer = observer
        let values = arguments.map(\.value)
        switch selector {
        case Self.launchSelector:
            launch(values, observer: observer, replies: replies)
        case "sendSignal:toPid:":
            if values.count == 2, let signal = Self.int(values[0]), let pid = Self.int(values[1]) {
                processes.signal(pid, signal: signal)
            }
            replies.ok()
        case "killPid:":
            if let pid = Self.int(values.first ?? nil) { processes.signal(pid, signal: Self.sigkill) }
            replies.ok()
        case "processIdentifierForBundleIdentifier:":
            // 0 when the app is not running (pymobiledevice3's docstring; appium-ios-remotexpc's likewise).
            let pid = (values.first as? String).flatMap { processes.pid(of: $0) } ?? 0
            replies.object(NSNumber(value: pid))
        case "startObservingPid:":
            if let pid = Self.int(values.first ?? nil) { _ = processes.observe(pid, by: observer) }
            replies.ok()
        case "stopObservingPid:":
            if let pid = Self.int(values.first ?? nil) { processes.stopObserving(pid, by: observer) }
            replies.ok()
        default:
            replies.error("processcontrol: unsupported selector \(selector)")
        }
    }

    func close() {
        if let observer { processes.remove(observer: observer) }
        observer = nil
    }

    private func launch(_ arguments: [Any?], observer: Int, replies: InstrumentsReplies) {
        guard arguments.count == 5, let bundleID = arguments[1] as? String else {
            return replies.error("processcontrol: launch needs path, bundle id, environment, arguments, options")
        }
        // Refusals come nested, as a phone sends them: processcontrol's own error, FrontBoard's beneath
        // (DeviceProcessControlError, FrontBoardRefusal).
        guard let app = device.services.app(bundleID), let version = device.osVersion else {
            return replies.error(
                DeviceProcessControlError.launchFailed(bundleID, frontBoard: FrontBoardRefusal.notFound(bundleID)))
        }
        if app.profile.codeSignatureValid == false || !device.services.trustsAppDevelopers {
            return replies.error(
                DeviceProcessControlError.launchFailed(bundleID, frontBoard: FrontBoardRefusal.security(bundleID)))
        }
        if device.services.isLocked {
            return replies.error(
                DeviceProcessControlError.launchFailed(bundleID, frontBoard: FrontBoardRefusal.locked(bundleID)))
        }
        let options = arguments[4] as? NSDictionary
        let killExisting = (options?["KillExisting"] as? NSNumber)?.boolValue ?? false
        if killExisting, let terminating = processes.stillTerminating(bundleID) {
            let executable = URL(fileURLWithPath: arguments[0] as? String ?? "/").lastPathComponent
            return replies.error(DeviceProcessControlError.alreadyRunning(executable: executable, pid: terminating))
        }
        if !killExisting, let running = processes.pid(of: bundleID) {
            // The app is brought forward, not started again (unverified on a phone).
            return replies.object(NSNumber(value: running))
        }
        var environment: [String: String] = [:]
        for (key, value) in (arguments[2] as? NSDictionary) ?? [:] {
            if let key = key as? String, let value = value as? String { environment[key] = value }
        }
        let argv = ((arguments[3] as? NSArray) ?? []).compactMap { $0 as? String }
        let services = device.services
        // The device's work on the launch starts here, where debugserver's `c` starts it (DebugServerService
        // startProcess): the bench counts the same span for both launchers.
        let accepted = (date: Date(), instant: ContinuousClock.now)
        let (number, kind, moment) = services.beginMomentLaunch(bundleID)
        services.recordLaunch(
            EmulatedLaunch(
                bundleID: bundleID, number: number, kind: kind, arguments: [app.executablePath] + argv,
                environment: environment.sorted { $0.key < $1.key }.map {
                    EnvironmentVariable(name: $0.key, value: $0.value)
                }))
        var planner = LaunchPlanner(
            productType: device.spec.productType, osVersion: version, udid: device.udid,
            labSeed: services.seed ?? labSeed)
        planner.device = moment
        let plan = planner.plan(app: app, environment: environment, kind: kind, launchNumber: number)
        processes.launch(
            plan, bundleID: bundleID, observer: observer, lab: lab, eventLoop: eventLoop, acceptedAt: accepted)
        KdebugTaps.publishLaunch(
            plan: plan, device: device, lab: lab,
            buildsClosure: device.closures.build(bundleID, cold: kind == .cold, launchNumber: number),
            eventLoop: eventLoop)
        replies.object(NSNumber(value: plan.pid))
    }

    /// A number argument, archived (NSNumber) or primitive.
    private static func int(_ value: Any?) -> Int? {
        if let int = value as? Int { return int }
        return (value as? NSNumber)?.intValue
    }
}
