import Foundation
import LaunchBench
import MobileDevice

/// The device locks of one run (see `DeviceLock`): taken after the devices are selected, held until the run
/// ends. A busy device is left out with who holds it; when every device is busy the run is refused.
struct DeviceLocks {
    var held: [DeviceLock]
    /// Busy devices: UDID → why they are not measured (recorded as skipped in run.json).
    var busy: [String: String]

    /// - Parameter usbmuxd: the usbmuxd in use (`nil`: the system daemon); the daemon it really is (its BUID,
    ///   else its resolved socket) scopes the lock, since emulated labs reuse UDIDs (`DeviceLock.scope`).
    /// - Throws: `LaunchBenchError.devicesBusy` when no selected device is free.
    static func acquire(_ devices: [DeviceInfo], usbmuxd address: USBMuxAddress?) throws -> DeviceLocks {
        let scope = DeviceLock.scope(usbmuxd: address, systemBUID: USBMuxAddress.configuredSystemBUID())
        var locks = DeviceLocks(held: [], busy: [:])
        var refusals: [String] = []
        for device in devices {
            switch try DeviceLock.acquire(udid: device.udid, scope: scope) {
            case .success(let lock):
                locks.held.append(lock)
            case .failure(let busy):
                let reason =
                    "\(busy.description). One run per device at a time: a second run's cold launches would "
                    + "follow the first run's launches and measure warm."
                locks.busy[device.udid] = reason
                refusals.append("\(device.name) (\(busy.description))")
            }
        }
        if !devices.isEmpty, locks.held.isEmpty {
            throw LaunchBenchError.devicesBusy(refusals)
        }
        return locks
    }

    func release() {
        for lock in held { lock.release() }
    }
}
