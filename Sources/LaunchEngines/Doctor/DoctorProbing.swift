import LaunchBench

/// What `launchbench doctor` asks of the lockdown driver beside a run's calls: the lockdown handshake, the
/// developer readiness `devices` shows, and whether lockdown starts a service. `MobileDeviceDriver` implements
/// it, as it implements `ForwardedDebugserverLaunching`.
package protocol DoctorProbing: ForwardedDebugserverLaunching {
    /// Starts a lockdown session with the host's pair record (the TLS handshake of a paired, trusted host).
    /// - Throws: the device's refusal (not paired, not trusted, locked), naming the fix.
    func checkPairing(of udid: String) async throws

    /// Developer Mode and the Developer Disk Image, as `launchbench devices` reads them.
    func developerReadiness(of device: DeviceInfo) async -> DeveloperReadiness

    /// Asks lockdown to start `service` on `udid` (the connection is not used).
    /// - Throws: the refusal (`InvalidService`, …) or the transport's error.
    func startService(_ service: String, on udid: String) async throws
}
