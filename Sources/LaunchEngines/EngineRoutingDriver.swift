import Foundation
import LaunchBench

/// The driver a run uses: each device's calls go to the engine `router` chooses for it (`EngineChoice`).
/// libimobiledevice devices and pymobiledevice3 devices share `base` (lockdown for listing, install,
/// uninstall, restart); pymobiledevice3 only forwards debugserver, which `base`'s GDB loop then drives
/// over TCP. devicectl devices go to `devicectl` for install, uninstall and launch.
package final class EngineRoutingDriver: DeviceDriver {
    package let base: any ForwardedDebugserverLaunching
    package let router: EngineRouter
    package let pymobiledevice3: Pymobiledevice3Engine?
    package let devicectl: DevicectlDriver?
    /// The devices of the run, by UDID: what the router decides on.
    private let devices: [String: DeviceInfo]

    /// Routes the calls for `devices` (the run's, known when the engines are composed); a device not among them
    /// is looked up through `base` when it is first used.
    package init(
        base: any ForwardedDebugserverLaunching, router: EngineRouter, devices: [DeviceInfo] = [],
        pymobiledevice3: Pymobiledevice3Engine? = nil, devicectl: DevicectlDriver? = nil
    ) {
        self.base = base
        self.router = router
        self.devices = Dictionary(devices.map { ($0.udid, $0) }) { first, _ in first }
        self.pymobiledevice3 = pymobiledevice3
        self.devicectl = devicectl
    }

    // Forwarded explicitly: the protocol's defaults would read every device strictly and reinstall in
    // two sessions, losing `base`'s tolerant listing and its lean reinstall.
    package func listDevices(reading udids: [String]?) async throws -> DeviceListing {
        try await base.listDevices(reading: udids)
    }

    package func reinstall(_ app: AppBundle, on udid: String, timeout: Duration) async throws -> ReinstallTimings {
        if case .devicectl = try await engine(of: udid).1.engine, let devicectl {
            let clock = ContinuousClock()
            let uninstall = try await clock.measure { try await devicectl.uninstall(bundleID: app.bundleID, on: udid) }
            let install = try await clock.measure { try await devicectl.install(app, on: udid, timeout: timeout) }
            return ReinstallTimings(uninstall: uninstall, install: install)
        }
        return try await base.reinstall(app, on: udid, timeout: timeout)
    }

    /// The syslog relay is a lockdown service, whatever engine launches: `base` reads it.
    package func deviceLog(on udid: String) async throws -> AsyncThrowingStream<String, any Error> {
        try await base.deviceLog(on: udid)
    }

    package func uninstall(bundleID: String, on udid: String) async throws {
        if case .devicectl = try await engine(of: udid).1.engine, let devicectl {
            return try await devicectl.uninstall(bundleID: bundleID, on: udid)
        }
        try await base.uninstall(bundleID: bundleID, on: udid)
    }

    package func install(_ app: AppBundle, on udid: String, timeout: Duration) async throws {
        if case .devicectl = try await engine(of: udid).1.engine, let devicectl {
            return try await devicectl.install(app, on: udid, timeout: timeout)
        }
        try await base.install(app, on: udid, timeout: timeout)
    }

    package func launch(
        _ request: LaunchRequest, on udid: String, observer: any LaunchObserver
    ) async throws -> LaunchTermination {
        let (device, decision) = try await engine(of: udid)
        switch decision.engine {
        case .devicectl?:
            guard let devicectl else {
                throw EngineError.missing(engine: .devicectl, path: "xcrun", install: "Xcode 16+")
            }
            return try await devicectl.launch(request, on: udid, observer: observer)
        case .pymobiledevice3?:
            guard let pymobiledevice3 else {
                throw EngineError.missing(
                    engine: .pymobiledevice3, path: "pymobiledevice3", install: EngineChoice.pymobiledevice3Install)
            }
            return try await launchThroughSidecar(request, device: device, engine: pymobiledevice3, observer: observer)
        case .libimobiledevice?, nil:
            return try await base.launch(request, on: udid, observer: observer)
        }
    }

    package func restart(_ udid: String, timeout: Duration) async throws {
        try await base.restart(udid, timeout: timeout)
    }

    /// Stops the engines' helper processes (call when the run ends, also after Ctrl-C).
    package func shutdown() async {
        await pymobiledevice3?.stopAll()
    }

    private func launchThroughSidecar(
        _ request: LaunchRequest, device: DeviceInfo, engine: Pymobiledevice3Engine, observer: any LaunchObserver
    ) async throws -> LaunchTermination {
        let sidecar = try await engine.sidecar(for: device)
        let logStart = sidecar.logSize
        let forwarder =
            "pymobiledevice3's debugserver forwarder (pid \(sidecar.processIdentifier), port \(sidecar.port))"
        do {
            return try await base.launch(
                request, on: device.udid, forwardedPort: sidecar.port, forwarder: forwarder, observer: observer)
        } catch let error as CancellationError {
            throw error
        } catch {
            // What the sidecar printed during this launch says why (DDI, Developer Mode, tunnel).
            try? await Task.sleep(for: .milliseconds(200))
            let kind = (error as? any DriverError)?.failureKind ?? .other
            var detail = (error as? any LocalizedError)?.errorDescription ?? String(describing: error)
            let tunnelled = Pymobiledevice3Transport(for: device).isTunnel
            if !sidecar.isRunning {
                detail += " The forwarder is gone; the next launch starts a new one."
            } else if tunnelled {
                // pymobiledevice3 keeps forwarding after its tunnel died (the phone rebooted, the cable
                // dropped): a new forwarder builds a new tunnel. Cheap (a second or two), and never wrong.
                await engine.discard(device.udid)
                detail += " The next launch starts a new forwarder and tunnel."
            }
            throw EngineError.launchThroughSidecar(
                udid: device.udid, detail: detail, log: sidecar.logTail(since: logStart),
                logPath: sidecar.logURL.path, kind: kind == .deviceLost ? .deviceLost : .launchRefused,
                tunnelled: tunnelled)
        }
    }

    /// The device and the router's decision for it. A device the driver was not given (a test that drives it
    /// directly) is read through `base`; one that cannot be listed goes through lockdown.
    private func engine(of udid: String) async throws -> (DeviceInfo, EngineDecision) {
        if let known = devices[udid] { return (known, router.decision(for: known)) }
        guard let device = try await base.listDevices(reading: [udid]).devices.first(where: { $0.udid == udid }) else {
            return (
                DeviceInfo(udid: udid, name: udid, productType: "", osVersion: "", buildVersion: ""),
                .use(.libimobiledevice, reason: "device not listed")
            )
        }
        return (device, router.decision(for: device))
    }
}
