import ArgumentParser
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice

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
                checks dyld's. Each launch's timeline goes to DIR/traces/.
                """,
            valueName: "source"))
    var premain: String = "auto"

    var premainSelection: PremainSelection { PremainSelection(rawValue: premain) ?? .auto }

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

    /// The kdebug reader for devices whose pre-main phases come from kdebug, when pymobiledevice3 is
    /// installed; it reaches the same usbmuxd and tunneld as the launch sidecars.
    func makeKdebugTracer(usbmuxd: USBMuxAddress?, host: EngineHost = .detect()) -> Pymobiledevice3KdebugTracer? {
        guard let executable = host.pymobiledevice3 else { return nil }
        var tracer = Pymobiledevice3KdebugTracer(
            executable: executable, environment: (try? Pymobiledevice3USBMux.environment(for: usbmuxd)) ?? [:])
        tracer.tunneld = tunneld
        return tracer
    }

    /// The driver for a run or a listing: every device routed to its engine; `usbmuxd` is what
    /// `ConnectionOptions.apply()` returned (the sidecars reach the same usbmuxd).
    func makeDriver(
        base: MobileDeviceDriver, usbmuxd: USBMuxAddress?, host: EngineHost = .detect()
    ) -> EngineRoutingDriver {
        var pymobiledevice3: Pymobiledevice3Engine?
        if let executable = host.pymobiledevice3 {
            // The sidecar gets the usbmuxd address in pymobiledevice3's own form (Pymobiledevice3USBMux).
            var environment: [String: String] = [:]
            do {
                environment = try Pymobiledevice3USBMux.environment(for: usbmuxd)
            } catch {
                Terminal.note("note: \(error.description)")
            }
            var configuration = Pymobiledevice3Engine.Configuration(executable: executable, environment: environment)
            configuration.tunneld = tunneld
            if let seconds = ProcessInfo.processInfo.environment["LAUNCHBENCH_ENGINE_START_TIMEOUT"].flatMap(
                Double.init)
            {
                configuration.startTimeout = .seconds(clamping: seconds)
            }
            pymobiledevice3 = Pymobiledevice3Engine(configuration)
        }
        return EngineRoutingDriver(
            base: base, selection: selection, host: host, pymobiledevice3: pymobiledevice3,
            devicectl: host.hasDevicectl ? DevicectlDriver() : nil)
    }
}
