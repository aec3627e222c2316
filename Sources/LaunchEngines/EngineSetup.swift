import Foundation
import LaunchBench

/// The launch engines of one command, set up once at the composition root (the `launchbench` commands): the
/// router that decides each device's engine, the one pymobiledevice3 (when installed), devicectl (macOS with
/// Xcode 16+). `devices` reads the router and the transport; `run` composes `engines(…)` once the devices are
/// selected and the results folder exists, so every helper log goes there from the start.
package struct EngineSetup: Sendable {
    /// `--engine` on this host.
    package var router: EngineRouter
    /// The pymobiledevice3 the host has (`nil`: none).
    package var pymobiledevice3: Pymobiledevice3Setup?

    /// `--engine selection` on `host`; pymobiledevice3's helpers reach `usbmuxd` (`nil`: the system one) and, for
    /// iOS 17.0–17.3.1, `tunneld`; with `pageFaults` their kdebug sessions trace page faults too.
    package init(
        selection: EngineSelection, host: EngineHost, usbmuxd: USBMuxAddress?, tunneld: String? = nil,
        startTimeout: Duration = .seconds(60), pageFaults: Bool = false
    ) {
        router = EngineRouter(selection: selection, host: host)
        pymobiledevice3 = host.pymobiledevice3.map {
            Pymobiledevice3Setup(executable: $0, usbmuxd: usbmuxd, tunneld: tunneld, startTimeout: startTimeout)
        }
        pymobiledevice3?.pageFaults = pageFaults
    }

    /// The engines of a run over `devices`, their helpers logging into `logs` (the results folder's `logs/`).
    package func engines(base: any ForwardedDebugserverLaunching, devices: [DeviceInfo], logs: URL) -> RunEngines {
        let tracer = pymobiledevice3?.tracer(logs: logs)
        let driver = EngineRoutingDriver(
            base: base, router: router, devices: devices, pymobiledevice3: pymobiledevice3?.engine(logs: logs),
            devicectl: router.host.hasDevicectl ? DevicectlDriver() : nil)
        return RunEngines(router: router, driver: driver, kdebug: tracer)
    }

    /// How pymobiledevice3 reaches `device` when `decision` launches it through pymobiledevice3, in the
    /// `devices` table's words (`userspace tunnel`, `tunneld`); `nil` otherwise and through lockdown.
    package func transport(for device: DeviceInfo, decision: EngineDecision) -> String? {
        guard decision.engine == .pymobiledevice3 else { return nil }
        return pymobiledevice3?.transport(for: device).tunnelName
    }
}

/// A run's engines, composed once: the routing driver, the kdebug tracer, and the router both the driver and
/// the runner decide by.
package struct RunEngines: Sendable {
    package let router: EngineRouter
    package let driver: EngineRoutingDriver
    package let kdebug: Pymobiledevice3KdebugTracer?

    /// The run's one runner over these engines; `conditions` reads each device's state before each iteration
    /// (the libimobiledevice driver, whatever engine launches: lockdown and diagnostics_relay serve every iOS).
    package func runner(
        reporter: any RunReporter = SilentRunReporter(), conditions: (any DeviceConditionReading)? = nil
    ) -> BenchmarkRunner {
        BenchmarkRunner(driver: driver, router: router, reporter: reporter, kdebug: kdebug, conditions: conditions)
    }

    /// Stops the engines' helper processes (when the run ends, also after Ctrl-C).
    package func shutdown() async {
        await driver.shutdown()
    }
}
