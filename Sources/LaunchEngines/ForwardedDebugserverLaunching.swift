import LaunchBench

/// What the routing driver needs from the lockdown driver: its GDB-remote launch loop, also over TCP to a
/// debugserver that the pymobiledevice3 sidecar forwards to 127.0.0.1. `MobileDeviceDriver` implements it; the
/// loop, parser and statistics stay launchbench's, only the transport changes.
package protocol ForwardedDebugserverLaunching: DeviceDriver {
    /// Like `launch(_:on:observer:)`, through `127.0.0.1:port`; `forwarder` names the sidecar in errors.
    func launch(
        _ request: LaunchRequest, on udid: String, forwardedPort port: UInt16, forwarder: String,
        observer: any LaunchObserver
    ) async throws -> LaunchTermination
}
