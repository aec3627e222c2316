import Foundation
import LaunchBench
import NIOCore

/// `com.apple.instruments.server.services.processcontrol`: launches an installed app with an environment
/// and arguments (its kdebug events reach every running session) and signals processes. The launched app
/// runs without a debugger, so its output goes nowhere; whether a real phone honours the environment of
/// an app not signed for development is unverified.
final class ProcessControlChannel: InstrumentsChannel {
    static let identifier = "com.apple.instruments.server.services.processcontrol"
    static let launchSelector = "launchSuspendedProcessWithDevicePath:bundleIdentifier:environment:arguments:options:"

    private let device: EmulatedDevice
    private let lab: EmulatedLab
    private let labSeed: UInt64
    private let eventLoop: any EventLoop

    init(device: EmulatedDevice, lab: EmulatedLab, labSeed: UInt64, eventLoop: any EventLoop) {
        self.device = device
        self.lab = lab
        self.labSeed = labSeed
        self.eventLoop = eventLoop
    }

    func receive(selector: String, arguments: [DTXArgument], replies: InstrumentsReplies) {
        switch selector {
        case Self.launchSelector:
            launch(arguments.map(\.value), replies: replies)
        case "sendSignal:toPid:", "killPid:":
            replies.ok()
        default:
            replies.error("processcontrol: unsupported selector \(selector)")
        }
    }

    private func launch(_ arguments: [Any?], replies: InstrumentsReplies) {
        guard arguments.count == 5, let bundleID = arguments[1] as? String else {
            return replies.error("processcontrol: launch needs path, bundle id, environment, arguments, options")
        }
        guard let app = device.services.app(bundleID), let version = device.osVersion else {
            return replies.error("The application \(bundleID) is not installed on the device.")
        }
        if device.services.isLocked {
            return replies.error("Unable to launch \(bundleID) because the device was not, or could not be, unlocked.")
        }
        var environment: [String: String] = [:]
        for (key, value) in (arguments[2] as? NSDictionary) ?? [:] {
            if let key = key as? String, let value = value as? String { environment[key] = value }
        }
        let argv = ((arguments[3] as? NSArray) ?? []).compactMap { $0 as? String }
        let services = device.services
        let (number, kind) = services.beginLaunch(bundleID)
        services.recordLaunch(
            EmulatedLaunch(
                bundleID: bundleID, number: number, kind: kind, arguments: [app.executablePath] + argv,
                environment: environment.sorted { $0.key < $1.key }.map {
                    EnvironmentVariable(name: $0.key, value: $0.value)
                }))
        let planner = LaunchPlanner(
            productType: device.spec.productType, osVersion: version, udid: device.udid,
            labSeed: services.seed ?? labSeed)
        let plan = planner.plan(app: app, environment: environment, kind: kind, launchNumber: number)
        KdebugTaps.publishLaunch(
            plan: plan, device: device, lab: lab, buildsClosure: kind == .cold, eventLoop: eventLoop)
        replies.object(NSNumber(value: plan.pid))
    }
}
