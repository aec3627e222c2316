import ArgumentParser
import Foundation
import LaunchBench
import LaunchEngines

/// `--engine auto|libimobiledevice|pymobiledevice3|devicectl`: what launches apps on each device.
struct EngineOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Launch engine: auto, libimobiledevice, pymobiledevice3 or devicectl.",
            discussion: """
                auto: libimobiledevice up to iOS 16; from iOS 17 devicectl on macOS with Xcode 16+, else \
                pymobiledevice3 when installed (found through LAUNCHBENCH_PYMOBILEDEVICE3, a .venv-pmd3 folder, \
                or PATH), else the device is skipped with advice.
                """,
            valueName: "engine"))
    var engine: String = "auto"

    @Option(
        help: ArgumentHelp(
            "The root pymobiledevice3 tunneld for iOS 17.0–17.3.1: PORT (on 127.0.0.1) or HOST:PORT.",
            discussion: "Default: pymobiledevice3's own, 127.0.0.1:49151. Passed as --tunnel UDID:PORT.",
            valueName: "port"))
    var tunneld: String?

    @Option(
        help: ArgumentHelp(
            "Where pre-main phases come from: auto, dyld-statistics or kdebug.",
            discussion: """
                auto: dyld's printed statistics where they print (iOS ≤ 12; 13–14 with an override variable such \
                as DYLD_INSERT_LIBRARIES), else dyld's own kdebug events from iOS 14 on, read through \
                pymobiledevice3's core profile session (no change to the app). On iOS 14 with an override, \
                auto keeps dyld's numbers and checks each launch against kdebug; kdebug there uses kdebug's and \
                checks dyld's. Each launch's timeline goes to DIR/traces/. A device whose kdebug session \
                cannot start (no pymobiledevice3, kperf held by Instruments or Xcode, refused or late): kdebug \
                skips it with the cause and the fix (exit 3); auto measures it without pre-main, every launch \
                recorded with premain_source none and why.
                """,
            valueName: "source"))
    var premain: String = "auto"

    @Option(
        help: ArgumentHelp(
            "How apps are launched: auto, processcontrol or debugserver.",
            discussion: """
                auto: through the instruments service's process control, with no debugger attached, wherever the \
                device's kdebug session runs (over its connection): kdebug is the pre-main source, or it checks \
                dyld's printed statistics (iOS 14 with an override), which then arrive in process control's output; \
                debugserver elsewhere (iOS 13 and earlier, --premain dyld-statistics). processcontrol: a device \
                where it cannot be used is skipped with the cause and the fix (exit 3).
                """,
            valueName: "launcher"))
    var launcher: String = "auto"

    @Flag(
        help: ArgumentHelp(
            "Also trace page faults in the kdebug session: page-ins per launch and image.",
            discussion: """
                Adds DBG_MACH_VM (MACH_vmfault) to the session: page_ins, page_in_ms, zero-fill, copy-on-write and \
                compressor counts from exec to the first frame in samples.jsonl, page-ins per image in images.csv, \
                a page-in track in each timeline. Off by default: it costs the loop about 1-2 % of the device's \
                time (Documentation/Performance.md).
                """))
    var pageFaults = false

    var premainSelection: PremainSelection { PremainSelection(rawValue: premain) ?? .auto }

    var launcherChoice: LauncherChoice { LauncherChoice(rawValue: launcher) ?? .auto }

    var selection: EngineSelection { EngineSelection(engine) ?? .auto }

    func validate() throws {
        if let tunneld {
            let isPort = Int(tunneld).map { (1...65535).contains($0) } ?? false
            guard isPort || Self.isHostAndPort(tunneld) else {
                throw ValidationError(
                    "--tunneld \(tunneld) is not an address. Use the port tunneld listens on (e.g. 49151) or HOST:PORT."
                )
            }
        }
        guard PremainSelection(rawValue: premain) != nil else {
            throw ValidationError(
                "--premain \(premain) is not a source. Use one of: "
                    + PremainSelection.allCases.map(\.rawValue).joined(separator: ", ") + ".")
        }
        guard LauncherChoice(rawValue: launcher) != nil else {
            throw ValidationError(
                "--launcher \(launcher) is not a launcher. Use one of: "
                    + LauncherChoice.allCases.map(\.rawValue).joined(separator: ", ") + ".")
        }
        guard EngineSelection(engine) != nil else {
            throw ValidationError(
                "--engine \(engine) is not an engine. Use one of: \(EngineSelection.spellings.joined(separator: ", "))."
            )
        }
    }

    private static func isHostAndPort(_ text: String) -> Bool {
        guard case .tcp? = USBMuxAddress(text) else { return false }
        return true
    }

    /// The engines of `run` and `devices` on `host`: the command's one `EngineSetup` (its pymobiledevice3 reaches
    /// the same usbmuxd, `ConnectionOptions.apply()`'s, and `--tunneld`). Says once when pymobiledevice3 cannot
    /// reach that usbmuxd (its helpers then use the system one).
    func setup(usbmuxd: USBMuxAddress?, host: EngineHost = .detect()) -> EngineSetup {
        var startTimeout = Duration.seconds(60)
        if let seconds = ProcessInfo.processInfo.environment["LAUNCHBENCH_ENGINE_START_TIMEOUT"].flatMap(Double.init) {
            startTimeout = .seconds(clamping: seconds)
        }
        let setup = EngineSetup(
            selection: selection, host: host, usbmuxd: usbmuxd, tunneld: tunneld, startTimeout: startTimeout,
            pageFaults: pageFaults)
        if let problem = setup.pymobiledevice3?.usbmuxProblem { Terminal.note("note: \(problem)") }
        return setup
    }
}
