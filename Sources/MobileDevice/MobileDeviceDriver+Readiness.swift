import Foundation
import LaunchBench

extension MobileDeviceDriver {
    /// Developer Mode (lockdown's `com.apple.security.mac.amfi` `DeveloperModeStatus`, iOS 16+) and whether a
    /// Developer Disk Image is mounted (`mobile_image_mounter` `LookupImage`: `Personalized` from iOS 17,
    /// `Developer` before). What the device does not answer is `unknown`, never an error.
    package func developerReadiness(of device: DeviceInfo) async -> DeveloperReadiness {
        await readinessSession.readiness(of: device)
    }
}

/// Readiness checks on their own serial queue (blocking C calls, off the cooperative pool).
actor ReadinessSession {
    private let executor = DeviceQueueExecutor(label: "launchbench.readiness")

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func readiness(of device: DeviceInfo) -> DeveloperReadiness {
        let version = device.version
        let modern = version.map { $0.major >= 17 } ?? false
        var developerMode: DeveloperReadiness.State = (version.map { $0.major < 16 } ?? false) ? .notNeeded : .unknown
        var diskImage: DeveloperReadiness.State = .unknown
        if let handle = try? DeviceHandle(udid: device.udid) {
            if developerMode != .notNeeded, let lockdown = try? LockdownClient(device: handle, handshake: true),
                let status = try? lockdown.value(forKey: "DeveloperModeStatus", domain: "com.apple.security.mac.amfi"),
                let on = status.boolValue
            {
                developerMode = on ? .ready : .notReady
            }
            if let mounter = try? ImageMounterClient(device: handle),
                let mounted = try? mounter.isMounted(type: modern ? "Personalized" : "Developer")
            {
                diskImage = mounted ? .ready : .notReady
            }
        }
        return DeveloperReadiness(
            developerMode: developerMode, diskImage: diskImage,
            advice: DeveloperReadiness.advice(
                udid: device.udid, developerMode: developerMode, diskImage: diskImage, modern: modern))
    }
}
