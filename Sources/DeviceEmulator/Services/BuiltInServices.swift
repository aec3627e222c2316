/// The services every new lab registers unless told otherwise (`EmulatedLab.start(…, services:)`).
/// Add a service here once it is implemented.
public enum BuiltInServices {
    /// The default service set: installation_proxy, AFC, debugserver, diagnostics_relay.
    public static var all: [any EmulatedService] {
        [InstallationProxyService(), AFCService(), DebugServerService(), DiagnosticsRelayService()]
    }
}
