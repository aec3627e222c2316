import Foundation
import LaunchBench

/// The one pymobiledevice3 of a command: the program, how it reaches usbmuxd and tunneld, how long its helpers
/// may take to start. The launch engine (`engine(logs:)`), the kdebug tracer (`tracer(logs:)`) and the `devices`
/// table's transport column (`transport(for:)`) come from it, so they reach a device the same way
/// (`Pymobiledevice3Transport`).
package struct Pymobiledevice3Setup: Sendable {
    /// The `pymobiledevice3` program (`Pymobiledevice3Locator.find()`); its Python runs the kdebug helper.
    package var executable: String
    /// Added to each helper's environment: the usbmuxd address in pymobiledevice3's form
    /// (`Pymobiledevice3USBMux`), for an emulated lab.
    package var environment: [String: String]
    /// Why the usbmuxd address cannot be handed to pymobiledevice3 (its helpers then reach the system usbmuxd),
    /// for the command to say once; `nil` when it can.
    package var usbmuxProblem: String?
    /// The root `remote tunneld` that serves iOS 17.0–17.3.1: a port on 127.0.0.1 or `host:port`;
    /// `nil` is pymobiledevice3's default, 127.0.0.1:49151 (parallel labs each need their own).
    package var tunneld: String?
    /// How long a helper may take to be ready (a userspace tunnel takes a few seconds on a real phone).
    package var startTimeout: Duration
    /// Whether the kdebug helpers also trace page faults (`--page-faults`: `DBG_MACH_VM`, for page-ins).
    package var pageFaults = false
    /// pymobiledevice3's own options, before the sidecar's command: plain logs (`--no-color`), and `-v` from
    /// `LAUNCHBENCH_PYMOBILEDEVICE3_VERBOSE=1` (its debug log, for a launch that fails unexplained).
    package var globalArguments: [String] =
        ["--no-color"]
        + (ProcessInfo.processInfo.environment["LAUNCHBENCH_PYMOBILEDEVICE3_VERBOSE"] == "1" ? ["-v"] : [])

    /// pymobiledevice3 at `executable`, reaching the usbmuxd at `usbmuxd` (`nil`: the system one).
    package init(
        executable: String, usbmuxd: USBMuxAddress? = nil, tunneld: String? = nil,
        startTimeout: Duration = .seconds(60)
    ) {
        self.executable = executable
        self.tunneld = tunneld
        self.startTimeout = startTimeout
        do {
            environment = try Pymobiledevice3USBMux.environment(for: usbmuxd)
        } catch {
            environment = [:]
            usbmuxProblem = error.description
        }
    }

    /// The sidecars of a run, each logging to `logs/<UDID>/pymobiledevice3.log`.
    package func engine(logs: URL) -> Pymobiledevice3Engine {
        Pymobiledevice3Engine(self, logs: logs)
    }

    /// The kdebug helpers of a run, each logging to `logs/<UDID>/kdebug-tap.log`.
    package func tracer(logs: URL) -> Pymobiledevice3KdebugTracer {
        Pymobiledevice3KdebugTracer(self, logs: logs)
    }

    /// How pymobiledevice3 reaches `device`.
    package func transport(for device: DeviceInfo) -> Pymobiledevice3Transport {
        Pymobiledevice3Transport(for: device)
    }

    /// The sidecar's arguments for `device`'s transport: none through lockdown; `--userspace`; `--tunnel SPEC`.
    func sidecarArguments(for device: DeviceInfo) -> [String] {
        switch transport(for: device) {
        case .lockdown: return []
        case .userspaceTunnel: return ["--userspace"]
        case .tunneld: return ["--tunnel", Self.tunnelSpec(udid: device.udid, tunneld: tunneld)]
        }
    }

    /// The kdebug helper's arguments for `device`'s transport (`KdebugTapScript`'s `--transport`).
    func helperArguments(for device: DeviceInfo) -> [String] {
        switch transport(for: device) {
        case .lockdown: return []
        case .userspaceTunnel: return ["--transport", "userspace"]
        case .tunneld: return ["--transport", "tunneld", "--tunneld", Self.tunneldAddress(tunneld)]
        }
    }

    /// A helper's whole environment: launchbench's, `environment` over it, and `PYTHONPATH` led by the run's
    /// private folder with the `sitecustomize.py` every helper loads (`Pymobiledevice3ChecksumFix`).
    /// - Throws: `LaunchBenchError.unsafeFolder` or `.cannotWrite` when the private folder cannot be had.
    func helperEnvironment() throws -> [String: String] {
        try Pymobiledevice3ChecksumFix.environment(
            adding: ProcessInfo.processInfo.environment.merging(environment) { $1 })
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

    /// tunneld's address as `host:port` for the kdebug helper (a bare port is on 127.0.0.1; pymobiledevice3's
    /// default 49151).
    static func tunneldAddress(_ tunneld: String?) -> String {
        guard let tunneld, !tunneld.isEmpty else { return "127.0.0.1:49151" }
        return tunneld.contains(":") ? tunneld : "127.0.0.1:\(tunneld)"
    }
}
