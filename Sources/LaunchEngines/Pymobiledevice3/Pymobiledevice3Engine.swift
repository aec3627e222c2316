import Foundation
import LaunchBench

/// The pymobiledevice3 sidecars of a run: one `debugserver start-server` per device, started on the
/// device's first launch, reused by the next ones, restarted when it died in between, stopped by `stopAll()`.
package actor Pymobiledevice3Engine {
    private let setup: Pymobiledevice3Setup
    /// The run's log folder: a device's sidecar writes `<UDID>/pymobiledevice3.log` in it, one restarted after
    /// its predecessor died `pymobiledevice3-2.log` beside it, and so on.
    private let logs: URL
    private var sidecars: [String: DebugserverSidecar] = [:]

    /// The sidecars of `setup`, logging into `logs` (the results folder's `logs/`).
    package init(_ setup: Pymobiledevice3Setup, logs: URL) {
        self.setup = setup
        self.logs = logs
    }

    /// The device's running sidecar, started (or restarted) as needed.
    func sidecar(for device: DeviceInfo) async throws -> DebugserverSidecar {
        if let running = sidecars[device.udid] {
            if running.isRunning { return running }
            await running.stop()
            sidecars[device.udid] = nil
        }
        let log = try HelperLog.next(in: logs.appendingPathComponent(device.udid), named: "pymobiledevice3")
        let sidecar = try await DebugserverSidecar.start(
            executable: setup.executable, globalArguments: setup.globalArguments, udid: device.udid,
            extraArguments: setup.sidecarArguments(for: device), environment: try setup.helperEnvironment(),
            logURL: log, startTimeout: setup.startTimeout)
        sidecars[device.udid] = sidecar
        return sidecar
    }

    /// Stops the device's sidecar, so the next launch starts a new one (and with it a new tunnel).
    func discard(_ udid: String) async {
        await sidecars.removeValue(forKey: udid)?.stop()
    }

    /// Stops every sidecar (end of the run, Ctrl-C).
    package func stopAll() async {
        let running = sidecars.values
        sidecars = [:]
        for sidecar in running { await sidecar.stop() }
    }

    /// The pids of the sidecars running now (tests check none is left).
    package var runningProcessIdentifiers: [Int32] { sidecars.values.filter(\.isRunning).map(\.processIdentifier) }
}
