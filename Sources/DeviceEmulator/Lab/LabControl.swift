import Foundation

/// What `launchbench emulator` accepts on its standard input while the lab runs, one command a line, so a
/// user can rehearse an unplugged or rebooting phone in their pipeline (and tests can unplug one phone of a
/// lab mid-run):
///
///     detach UDID          unplug it (usbmuxd says Detached; open connections close)
///     attach UDID          plug it back in
///     reboot UDID [S]      detach, then attach after S emulated seconds (default 5)
///     heat UDID C [H]      the battery is at C °C and cools toward 30 °C, halving the gap every H emulated
///                          seconds (default 60); launches slow down while it is above 35 °C (EmulatedConditions)
///     battery UDID PCT     the battery level, 0 to 100
///     charging UDID on|off whether the battery charges
///     prelaunch UDID BUNDLE [prewarm|closure]
///                          the phone launches the installed app by itself now, as iOS 15+'s dasd does
///                          (EmulatedPrelaunches): the device log's line and the trace's exec
///     list                 each device and whether it is attached
///     help                 this list
///
/// Each command is answered with one line on stdout: `ok …` or `error: …` with what to type instead.
package enum LabControl {
    /// A parsed command.
    package enum Command: Sendable, Equatable {
        /// Unplug the device.
        case detach(udid: String)
        /// Plug it back in.
        case attach(udid: String)
        /// Detach, then attach after `seconds` emulated seconds.
        case reboot(udid: String, seconds: Double)
        /// The battery is at `celsius` and cools with this half-life (emulated seconds).
        case heat(udid: String, celsius: Double, halfLife: Double)
        /// The battery level, %.
        case battery(udid: String, percent: Int)
        /// Whether the battery charges.
        case charging(udid: String, on: Bool)
        /// The phone launches the installed app by itself, for this reason.
        case prelaunch(udid: String, bundleID: String, reason: EmulatedPrelaunches.Reason)
        /// Each device and whether it is attached.
        case list
        /// The commands.
        case help
    }

    /// The commands, for `help` and for errors.
    package static let usage =
        "commands: detach UDID | attach UDID | reboot UDID [SECONDS] | heat UDID CELSIUS [HALF-LIFE] | "
        + "battery UDID PERCENT | charging UDID on|off | prelaunch UDID BUNDLE [prewarm|closure] | list | help"

    /// Parses one line; `nil` for a blank line.
    /// - Throws: `EmulatorError.badControlCommand` naming what is wrong.
    package static func parse(_ line: String) throws -> Command? {
        let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let verb = words.first?.lowercased() else { return nil }
        func udid() throws -> String {
            guard words.count >= 2 else { throw EmulatorError.badControlCommand("\(verb) needs a UDID; \(usage)") }
            return words[1]
        }
        switch verb {
        case "detach" where words.count == 2: return .detach(udid: try udid())
        case "attach" where words.count == 2: return .attach(udid: try udid())
        case "reboot" where words.count <= 3:
            let seconds = words.count == 3 ? Double(words[2]) : 5
            guard let seconds, seconds.isFinite, seconds >= 0 else {
                throw EmulatorError.badControlCommand("reboot's seconds must be a number of 0 or more; \(usage)")
            }
            return .reboot(udid: try udid(), seconds: seconds)
        case "heat" where (3...4).contains(words.count):
            let celsius = Double(words[2])
            let halfLife = words.count == 4 ? Double(words[3]) : 60
            guard let celsius, (-20...100).contains(celsius), let halfLife, halfLife.isFinite, halfLife > 0 else {
                throw EmulatorError.badControlCommand(
                    "heat needs a temperature from -20 to 100 °C and a half-life above 0 seconds; \(usage)")
            }
            return .heat(udid: try udid(), celsius: celsius, halfLife: halfLife)
        case "battery" where words.count == 3:
            guard let percent = Int(words[2]), (0...100).contains(percent) else {
                throw EmulatorError.badControlCommand("battery's level must be a whole number from 0 to 100; \(usage)")
            }
            return .battery(udid: try udid(), percent: percent)
        case "charging" where words.count == 3:
            guard ["on", "off"].contains(words[2].lowercased()) else {
                throw EmulatorError.badControlCommand("charging takes on or off; \(usage)")
            }
            return .charging(udid: try udid(), on: words[2].lowercased() == "on")
        case "prelaunch" where (3...4).contains(words.count):
            let reasons: [String: EmulatedPrelaunches.Reason] = ["prewarm": .prewarm, "closure": .closureGeneration]
            guard let reason = words.count == 4 ? reasons[words[3].lowercased()] : .prewarm else {
                throw EmulatorError.badControlCommand("prelaunch's reason is prewarm or closure; \(usage)")
            }
            return .prelaunch(udid: try udid(), bundleID: words[2], reason: reason)
        case "list" where words.count == 1: return .list
        case "help" where words.count == 1: return .help
        case "detach", "attach", "reboot", "heat", "battery", "charging", "prelaunch", "list", "help":
            throw EmulatorError.badControlCommand("wrong number of words in '\(line)'; \(usage)")
        default:
            throw EmulatorError.badControlCommand("unknown command '\(verb)'; \(usage)")
        }
    }

    /// Carries out one line on `lab` and returns the reply line (without a newline); a reboot replies when the
    /// device is back.
    package static func handle(_ line: String, on lab: EmulatedLab) async -> String? {
        do {
            guard let command = try parse(line) else { return nil }
            switch command {
            case .detach(let udid):
                try lab.detach(udid: udid)
                return "ok detached \(udid)"
            case .attach(let udid):
                try lab.attach(udid: udid)
                return "ok attached \(udid)"
            case .reboot(let udid, let seconds):
                try await lab.reboot(udid: udid, bootSeconds: seconds)
                return "ok rebooted \(udid)"
            case .heat(let udid, let celsius, let halfLife):
                try conditions(udid, on: lab).heat(to: celsius, halfLifeSeconds: halfLife, timeScale: lab.timeScale)
                return "ok \(udid) at \(celsius) °C, cooling"
            case .battery(let udid, let percent):
                try conditions(udid, on: lab).batteryPercent = percent
                return "ok \(udid) battery \(percent) %"
            case .charging(let udid, let on):
                try conditions(udid, on: lab).charging = on
                return "ok \(udid) charging \(on ? "on" : "off")"
            case .prelaunch(let udid, let bundleID, let reason):
                guard let device = lab.device(udid: udid) else { throw EmulatorError.unknownDevice(udid: udid) }
                guard let app = device.services.app(bundleID) else {
                    throw EmulatorError.badControlCommand("\(bundleID) is not installed on \(udid)")
                }
                device.prelaunches.prelaunch(app, reason: reason, device: device, lab: lab, seed: 0)
                return "ok \(udid) prelaunched \(bundleID) (\(reason.rawValue))"
            case .list:
                return lab.devices.map { "\($0.udid) \($0.isAttached ? "attached" : "detached")" }
                    .joined(separator: "\n")
            case .help:
                return usage
            }
        } catch {
            return "error: \((error as? LocalizedError)?.errorDescription ?? "\(error)")"
        }
    }

    /// The device's battery and temperature state.
    private static func conditions(_ udid: String, on lab: EmulatedLab) throws -> EmulatedConditions {
        guard let device = lab.device(udid: udid) else {
            throw EmulatorError.unknownDevice(udid: udid)
        }
        return device.services.conditions
    }
}
