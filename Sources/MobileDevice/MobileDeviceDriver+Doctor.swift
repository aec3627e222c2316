import LaunchBench
import LaunchEngines

extension MobileDeviceDriver: DoctorProbing {
    package func checkPairing(of udid: String) async throws {
        try await doctorSession.checkPairing(of: udid)
    }

    package func startService(_ service: String, on udid: String) async throws {
        try await doctorSession.startService(service, on: udid)
    }
}

/// `launchbench doctor`'s lockdown calls on their own serial queue (blocking C calls, off the cooperative pool),
/// each on a fresh device handle and lockdown session, so what they find is not a kept session's.
actor DoctorSession {
    private let executor = DeviceQueueExecutor(label: "launchbench.doctor")

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func checkPairing(of udid: String) throws {
        _ = try LockdownClient(device: try DeviceHandle(udid: udid), handshake: true)
    }

    func startService(_ service: String, on udid: String) throws {
        let lockdown = try LockdownClient(device: try DeviceHandle(udid: udid), handshake: true)
        _ = try lockdown.startService(service)
    }
}
