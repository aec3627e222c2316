/// A driver whose GDB-remote launch loop can also run over TCP to a debugserver that a sidecar engine
/// (pymobiledevice3) forwards to 127.0.0.1; `MobileDeviceDriver` is one. The loop, parser and
/// statistics stay launchbench's; only the transport changes.
package protocol ForwardedDebugserverLaunching: DeviceDriver {
    /// Like `launch(_:on:observer:)`, through `127.0.0.1:port`; `forwarder` names the sidecar in errors.
    func launch(
        _ request: LaunchRequest, on udid: String, forwardedPort port: UInt16, forwarder: String,
        observer: any LaunchObserver
    ) async throws -> LaunchTermination
}
