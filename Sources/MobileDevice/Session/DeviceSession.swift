import Foundation
import LaunchBench

/// An installed app's executable path and data container, from installation_proxy.
struct AppLocation {
    let executable: String
    let container: String?
}

/// Everything done to one device, one operation at a time, on that device's own serial queue:
/// libimobiledevice blocks (for seconds on a real iPhone), so its calls never run on Swift's
/// cooperative thread pool. Handles are created and freed inside each operation.
actor DeviceSession {
    let udid: String
    private let executor: DeviceQueueExecutor
    /// Where each app sits on the device, as installation_proxy last said: the warm launch right after a
    /// cold one needs no second lookup (one service connection and a round trip less per launch).
    /// Forgotten whenever the app may have moved: any install, uninstall or reinstall, and a failed launch.
    var appLocations: [String: AppLocation] = [:]

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

    /// Lockdown session values and service ports for one operation; the session is closed
    /// (StopSession) when this returns, before the services are used, as libimobiledevice's own
    /// `*_client_start_service` helpers do.
    func startServices(
        on device: DeviceHandle, _ services: [String]
    ) throws -> (deviceName: String, osVersion: String, services: [ServiceDescriptor]) {
        let lockdown = try LockdownClient(device: device, handshake: true)
        let name = try lockdown.string(forKey: "DeviceName")
        let version = try lockdown.string(forKey: "ProductVersion")
        return (name, version, try services.map { try lockdown.startService($0) })
    }
}
