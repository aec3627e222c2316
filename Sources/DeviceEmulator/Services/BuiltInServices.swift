/// The services every new lab registers unless told otherwise (`EmulatedLab.start(…, services:)`).
/// Add a service here once it is implemented.
package enum BuiltInServices {
    /// The default service set: installation_proxy, AFC, debugserver, diagnostics_relay, the
    /// instruments server (DVT), the syslog relay, the image mounter's
    /// lookup, and the iOS 17.4+
    /// CoreDeviceProxy tunnel.
    package static var all: [any EmulatedService] { all(seed: 0) }

    /// The default service set with a lab-wide seed for the emulated apps' noise and faults (an app
    /// profile's `seed` and a device's `services.seed` take precedence).
    package static func all(seed: UInt64) -> [any EmulatedService] {
        [
            InstallationProxyService(), AFCService(), DebugServerService(seed: seed), DiagnosticsRelayService(),
            InstrumentsService(seed: seed), CoreDeviceProxyService(seed: seed), SyslogRelayService(),
            ImageMounterService(),
        ]
    }
}
