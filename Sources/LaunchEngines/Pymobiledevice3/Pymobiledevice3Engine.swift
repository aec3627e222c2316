import Foundation
import LaunchBench

/// The pymobiledevice3 sidecars of a run: one `debugserver start-server` per device, started on the
/// device's first launch, reused by the next ones, restarted when it died in between, stopped by `stopAll()`.
package actor Pymobiledevice3Engine {
    /// The sidecar's configuration.
    package struct Configuration: Sendable {
        /// The `pymobiledevice3` program (`Pymobiledevice3Locator.find()`).
        package var executable: String
        /// Added to the sidecar's environment, e.g. `PYMOBILEDEVICE3_USBMUX` for an emulated lab.
        package var environment: [String: String]
        /// How long the sidecar may take to listen (a userspace tunnel takes a few seconds on a real phone).
        package var startTimeout: Duration
        /// The root `remote tunneld` that serves iOS 17.0–17.3.1: a port on 127.0.0.1 or `host:port`;
        /// `nil` is pymobiledevice3's default, 127.0.0.1:49151 (parallel labs each need their own).
        package var tunneld: String?
        /// Where sidecar logs go until `useLogFolder(_:)` names the results folder's `logs/`: by default the
        /// run's private folder (`PrivateFolder.run()`), never a shared temporary one.
        package var logFolder: URL
        /// pymobiledevice3's own options, before the command: plain logs (`--no-color`), and `-v` from
        /// `LAUNCHBENCH_PYMOBILEDEVICE3_VERBOSE=1` (its debug log, for a launch that fails unexplained).
        package var globalArguments: [String] =
            ["--no-color"]
            + (ProcessInfo.processInfo.environment["LAUNCHBENCH_PYMOBILEDEVICE3_VERBOSE"] == "1" ? ["-v"] : [])

        package init(
            executable: String, environment: [String: String] = [:], startTimeout: Duration = .seconds(60),
            logFolder: URL = PrivateFolder.runLocation.appendingPathComponent("logs")
        ) {
            self.executable = executable
            self.environment = environment
            self.startTimeout = startTimeout
            self.logFolder = logFolder
        }
    }

    private var configuration: Configuration
    private var sidecars: [String: DebugserverSidecar] = [:]

    package init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    /// Sidecar logs from now on go to `folder/<UDID>/pymobiledevice3.log` (the results folder's `logs/`); a
    /// sidecar restarted after its predecessor died writes `pymobiledevice3-2.log` beside it, and so on.
    package func useLogFolder(_ folder: URL) {
        configuration.logFolder = folder
    }

    /// The port of the device's running sidecar, started (or restarted) as needed.
    func sidecar(for device: DeviceInfo) async throws -> DebugserverSidecar {
        if let running = sidecars[device.udid] {
            if running.isRunning { return running }
            await running.stop()
            sidecars[device.udid] = nil
        }
        let sidecar = try await DebugserverSidecar.start(
            executable: configuration.executable, globalArguments: configuration.globalArguments, udid: device.udid,
            extraArguments: Self.tunnelArguments(for: device, tunneld: configuration.tunneld),
            environment: configuration.environment,
            logURL: try HelperLog.next(
                in: configuration.logFolder.appendingPathComponent(device.udid), named: "pymobiledevice3"),
            startTimeout: configuration.startTimeout)
        sidecars[device.udid] = sidecar
        return sidecar
    }

    /// How pymobiledevice3 reaches debugserver on the device's iOS: lockdown up to iOS 16; its no-root
    /// userspace tunnel from 17.4 (`--userspace`); the root `remote tunneld` on 17.0–17.3.1 (`--tunnel UDID`).
    static func tunnelArguments(for device: DeviceInfo, tunneld: String? = nil) -> [String] {
        guard let version = device.version, version.major >= 17 else { return [] }
        guard version < OSVersion(17, 4) else { return ["--userspace"] }
        return ["--tunnel", tunnelSpec(udid: device.udid, tunneld: tunneld)]
    }

    /// pymobiledevice3's `--tunnel` value: `UDID:PORT` is a tunneld on 127.0.0.1; `UDID@HOST:PORT` one
    /// elsewhere, which it reaches through tunneld's WebSocket bridge (cli_common.py `_parse_tunnel_spec`).
    static func tunnelSpec(udid: String, tunneld: String?) -> String {
        guard let tunneld else { return udid }
        if !tunneld.isEmpty, tunneld.allSatisfy(\.isASCII), tunneld.allSatisfy(\.isNumber) {
            return "\(udid):\(tunneld)"
        }
        for local in ["127.0.0.1:", "localhost:"] where tunneld.hasPrefix(local) {
            return "\(udid):\(tunneld.dropFirst(local.count))"
        }
        return "\(udid)@\(tunneld)"
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
