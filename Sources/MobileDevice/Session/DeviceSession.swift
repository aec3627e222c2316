import Foundation
import LaunchBench

/// An installed app's executable path and data container, from installation_proxy.
struct AppLocation {
    let executable: String
    let container: String?
}

/// Everything done to one device, one operation at a time, on that device's own serial queue:
/// libimobiledevice blocks (for seconds on a real iPhone), so its calls never run on Swift's
/// cooperative thread pool. Service connections are made and freed inside each operation; the device
/// handle and the lockdown session are kept across operations (`withLockdown`).
actor DeviceSession {
    let udid: String
    private let executor: DeviceQueueExecutor
    /// Where each app sits on the device, as installation_proxy last said: the warm launch right after a
    /// cold one needs no second lookup (one service connection and a round trip less per launch).
    /// Forgotten whenever the app may have moved: any install, uninstall or reinstall, and a failed launch.
    var appLocations: [String: AppLocation] = [:]
    /// The device handle and lockdown session kept across this device's operations: a new session costs a
    /// usbmuxd lookup, the pair record, a TLS handshake and six connections, three times an iteration.
    private var kept: (device: DeviceHandle, lockdown: LockdownClient)?
    /// TLS settings for service connections (debugserver on iOS 14–16), made on the first one.
    private var tlsContext: ServiceTLSContext?

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(udid: String) {
        self.udid = udid
        self.executor = DeviceQueueExecutor(label: "launchbench.device.\(udid)")
    }

    /// Whether usbmuxd lists the device now (`false` also when usbmuxd itself is gone).
    nonisolated func isAttached() -> Bool {
        (try? USBMuxDeviceList.entries().contains { $0.udid == udid }) ?? false
    }

    /// Throws `CancellationError` when the task was cancelled while this operation waited its turn.
    func checkNotCancelled(_ cancellation: CancellationFlag) throws {
        if cancellation.isCancelled { throw CancellationError() }
    }

    /// Runs `body`; a broken connection while the device is no longer listed becomes `.deviceLost`.
    func detectingLoss<Result>(during operation: String, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as DeviceError {
            guard Self.mayBeLoss(error), deviceLeft() else { throw error }
            throw DeviceError.deviceLost(udid: udid, operation: operation)
        }
    }

    /// Failures a detach produces: a library call's connection failure, and the transport symptoms our
    /// own clients report without one (a connection closed mid-reply, a TLS handshake or read that never
    /// finished) — an unplug can land between any two of them.
    static func mayBeLoss(_ error: DeviceError) -> Bool {
        switch error {
        case .protocolError, .timedOut: return true
        default: return error.call?.isConnectionFailure ?? false
        }
    }

    /// Checks a few times: usbmuxd may close the device's connections a moment before it drops
    /// the device from its list.
    nonisolated func deviceLeft() -> Bool {
        for attempt in 0..<3 {
            if !isAttached() { return true }
            if attempt < 2 { Thread.sleep(forTimeInterval: 0.2) }
        }
        return false
    }

    /// Runs `body` on the kept device handle and lockdown session, opening them first when there are none.
    /// `body` must be safe to run twice (lockdown requests, lookups): a kept session that fails with a
    /// transport symptom (the phone rebooted or was replugged, lockdownd closed it) is dropped and `body`
    /// runs once more on a new one. Any other failure leaves the session kept.
    func withLockdown<Result>(_ body: (DeviceHandle, LockdownClient) throws -> Result) throws -> Result {
        if let kept {
            do {
                return try body(kept.device, kept.lockdown)
            } catch let error as DeviceError where Self.mayBeLoss(error) {
                self.kept = nil
            }
        }
        let device = try DeviceHandle(udid: udid)
        let lockdown = try LockdownClient(device: device, handshake: true)
        kept = (device, lockdown)
        do {
            return try body(device, lockdown)
        } catch let error as DeviceError where Self.mayBeLoss(error) {
            kept = nil
            throw error
        }
    }

    /// Drops the kept session (before a restart: the phone comes back with new connections).
    func forgetLockdown() {
        kept = nil
        tlsContext = nil
    }

    /// The device's TLS context for service connections, read from its pair record the first time.
    func serviceTLS() throws -> ServiceTLSContext {
        if let tlsContext { return tlsContext }
        let context = try ServiceTLSContext(udid: udid)
        tlsContext = context
        return context
    }

    /// The device, its name and version, and service ports for one operation, from the kept lockdown session.
    func startServices(
        _ services: [String]
    ) throws -> (device: DeviceHandle, deviceName: String, osVersion: String, services: [ServiceDescriptor]) {
        try withLockdown { device, lockdown in
            let name = try lockdown.string(forKey: "DeviceName")
            let version = try lockdown.string(forKey: "ProductVersion")
            return (device, name, version, try services.map { try lockdown.startService($0) })
        }
    }
}
