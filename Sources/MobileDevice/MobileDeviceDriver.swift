import Foundation
import LaunchBench
import LaunchEngines

/// The `DeviceDriver` over libimobiledevice: real iPhones through usbmuxd, or the emulated lab
/// when `USBMUXD_SOCKET_ADDRESS` (see `USBMuxAddress.use(_:)`) points at it. It implements the launch
/// engines' `ForwardedDebugserverLaunching`, so the pymobiledevice3 engine drives debugserver with this loop.
///
/// Each device gets its own serial queue: operations on one device run one after another, devices
/// run in parallel, and no blocking C call runs on Swift's cooperative thread pool. Errors are
/// `DeviceError`s (a `DriverError`); a cancelled task gets `CancellationError` after the app, if
/// one was running, has been killed.
package final class MobileDeviceDriver: ForwardedDebugserverLaunching {
    /// How long an uninstall may take (the protocol gives it no timeout of its own).
    package static let uninstallTimeout: Duration = .seconds(120)

    private let sessions = Locked<[String: DeviceSession]>([:])
    private let usbmux = USBMuxSession()
    let readinessSession = ReadinessSession()
    let doctorSession = DoctorSession()

    package init() {}

    /// The attached devices, reading only `udids` (all when `nil`). A device whose values fail with a
    /// library error (restarting, unplugged mid-read) is retried briefly, then listed as unreadable.
    /// - Throws: `DeviceError.usbmuxdUnreachable` when usbmuxd cannot be reached.
    package func listDevices(reading udids: [String]?) async throws -> DeviceListing {
        try await usbmux.listing(reading: udids)
    }

    package func uninstall(bundleID: String, on udid: String) async throws {
        let session = session(for: udid)
        try await cancellable { flag in
            try await session.uninstall(bundleID: bundleID, timeout: Self.uninstallTimeout, cancellation: flag)
        }
    }

    package func install(_ app: AppBundle, on udid: String, timeout: Duration) async throws {
        let session = session(for: udid)
        try await cancellable { flag in try await session.install(app, timeout: timeout, cancellation: flag) }
    }

    /// Uninstall and install on one lockdown session; the upload runs while the device uninstalls, the
    /// install starts once the app is gone (see `DeviceSession.reinstall`).
    package func reinstall(_ app: AppBundle, on udid: String, timeout: Duration) async throws -> ReinstallTimings {
        let session = session(for: udid)
        return try await cancellable { flag in
            try await session.reinstall(
                app, uninstallTimeout: Self.uninstallTimeout, installTimeout: timeout, cancellation: flag)
        }
    }

    package func launch(
        _ request: LaunchRequest, on udid: String, observer: any LaunchObserver
    ) async throws -> LaunchTermination {
        let session = session(for: udid)
        return try await cancellable { flag in
            try await session.launch(request, observer: observer, cancellation: flag)
        }
    }

    /// Launches through a debugserver that a sidecar forwards to `127.0.0.1:port` (pymobiledevice3).
    package func launch(
        _ request: LaunchRequest, on udid: String, forwardedPort port: UInt16, forwarder: String,
        observer: any LaunchObserver
    ) async throws -> LaunchTermination {
        let session = session(for: udid)
        return try await cancellable { flag in
            try await session.launch(
                request, forwardedPort: port, forwarder: forwarder, observer: observer, cancellation: flag)
        }
    }

    package func restart(_ udid: String, timeout: Duration) async throws {
        let session = session(for: udid)
        try await cancellable { flag in try await session.restart(timeout: timeout, cancellation: flag) }
    }

    func session(for udid: String) -> DeviceSession {
        sessions.withLock { sessions in
            if let session = sessions[udid] { return session }
            let session = DeviceSession(udid: udid)
            sessions[udid] = session
            return session
        }
    }

    /// Runs `body` with a flag the blocking loop on the device queue polls; Task cancellation sets it.
    private func cancellable<Result: Sendable>(
        _ body: @Sendable (CancellationFlag) async throws -> Result
    ) async throws -> Result {
        let flag = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await body(flag)
        } onCancel: {
            flag.cancel()
        }
    }
}

/// usbmuxd-wide calls (listing, reading device values, subscribing) on their own serial queue, so
/// that listing never waits behind a long launch on a device's queue (lockdown takes several
/// connections at once).
actor USBMuxSession {
    private let executor = DeviceQueueExecutor(label: "launchbench.usbmuxd")

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Reading values needs a few lockdown round trips; a device restarting refuses them for a while.
    static let readAttempts = 3
    static let retryPause: TimeInterval = 0.3

    func listing(reading udids: [String]?) throws -> DeviceListing {
        let entries = try USBMuxDeviceList.entries()
        var devices: [DeviceInfo] = []
        var unreadable: [UnreadableDevice] = []
        for entry in entries {
            if let udids, !udids.contains(where: { $0.caseInsensitiveCompare(entry.udid) == .orderedSame }) { continue }
            do {
                devices.append(try Self.infoRetrying(udid: entry.udid, connection: entry.connection))
            } catch {
                unreadable.append(UnreadableDevice(udid: entry.udid, reason: Self.reason(error)))
            }
        }
        return DeviceListing(devices: devices, unreadable: unreadable, attached: entries.map(\.udid))
    }

    /// `info`, tried again after a pause while the device is still attached and fails with a library
    /// error (a device that is rebooting is listed but refuses lockdown for a moment).
    private static func infoRetrying(udid: String, connection: DeviceInfo.Connection) throws -> DeviceInfo {
        var attempt = 1
        while true {
            do {
                return try info(udid: udid, connection: connection)
            } catch let error as DeviceError where attempt < readAttempts && error.call != nil {
                attempt += 1
                Thread.sleep(forTimeInterval: retryPause)
            }
        }
    }

    private static func reason(_ error: any Error) -> String {
        if case DeviceError.deviceLost = error { return "it was detached while being read" }
        if let call = (error as? DeviceError)?.call { return "\(call.text) (\(call.code)) while \(call.operation)" }
        return error.localizedDescription
    }

    /// Name, model and iOS version from lockdown, without a session: works on devices that do not
    /// trust this computer yet.
    static func info(udid: String, connection: DeviceInfo.Connection) throws -> DeviceInfo {
        do {
            let device = try DeviceHandle(udid: udid)
            let lockdown = try LockdownClient(device: device, handshake: false)
            return DeviceInfo(
                udid: udid, name: try lockdown.string(forKey: "DeviceName"),
                productType: try lockdown.string(forKey: "ProductType"),
                osVersion: try lockdown.string(forKey: "ProductVersion"),
                buildVersion: try lockdown.string(forKey: "BuildVersion"), connection: connection)
        } catch let error as DeviceError {
            guard let call = error.call, call.isConnectionFailure,
                (try? USBMuxDeviceList.entries().contains { $0.udid == udid }) != true
            else { throw error }
            throw DeviceError.deviceLost(udid: udid, operation: "reading device values")
        }
    }
}
