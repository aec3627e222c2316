import Foundation
import LaunchBench

extension DeviceSession {
    /// Launches the installed app under debugserver and runs it until it ends or the observer ends it.
    func launch(
        _ request: LaunchRequest, observer: any LaunchObserver, cancellation: CancellationFlag
    ) throws -> LaunchTermination {
        try checkNotCancelled(cancellation)
        return try forgettingLocationOnFailure(of: request.bundleID) {
            let (device, app, debugService) = try prepareLaunch(of: request.bundleID)
            let connection = try DeviceServiceConnection(
                device: device, service: debugService, name: "debugserver", tlsContext: serviceTLS,
                handshakeTimeout: .seconds(10))
            var run = LaunchRun(
                client: GDBRemoteClient(transport: connection, udid: udid), udid: udid,
                bundleID: request.bundleID, observer: observer, cancellation: cancellation,
                deviceLeft: { [self] in deviceLeft() })
            return try run.run(
                executable: app.executable, workingDirectory: app.container, arguments: request.arguments,
                environment: request.environment)
        }
    }

    /// Looks the app up (executable path, data container) and starts debugserver, on the kept lockdown session.
    private func prepareLaunch(
        of bundleID: String
    ) throws -> (device: DeviceHandle, app: AppLocation, debugserver: ServiceDescriptor) {
        try withLockdown { device, lockdown in
            (device, try lookUp(bundleID, on: device, lockdown: lockdown), try startDebugserver(lockdown: lockdown))
        }
    }

    /// Runs one launch; when it fails, the app's location is looked up again next time (it may have moved).
    private func forgettingLocationOnFailure(
        of bundleID: String, _ body: () throws -> LaunchTermination
    ) throws -> LaunchTermination {
        do {
            return try detectingLoss(during: "launch of \(bundleID)", body)
        } catch {
            appLocations[bundleID] = nil
            throw error
        }
    }

    /// The Debian build of libimobiledevice 1.3.0 asks for the secure name first (iOS 14+), then the plain one.
    private static let debugserverServices = ["com.apple.debugserver.DVTSecureSocketProxy", "com.apple.debugserver"]

    /// The secure service first (iOS 14+), then the plain one, like the Debian library; when lockdown
    /// offers neither, says why in terms of the device's iOS version (read only then: two round trips
    /// fewer on every launch).
    private func startDebugserver(lockdown: LockdownClient) throws -> ServiceDescriptor {
        var refusal: LibraryCall?
        for service in Self.debugserverServices {
            do {
                return try lockdown.startService(service)
            } catch DeviceError.serviceUnavailable(_, _, let call) {
                refusal = call
            }
        }
        let osVersion = try lockdown.string(forKey: "ProductVersion")
        try fail(osVersion: osVersion, refusal: refusal, lockdown: lockdown)
    }

    /// Why lockdown offers no debugserver: iOS 16 with Developer Mode off (lockdown's `DeveloperModeStatus`, read
    /// only then), no Developer Disk Image, or iOS 17+.
    private func fail(osVersion: String, refusal: LibraryCall?, lockdown: LockdownClient) throws -> Never {
        var developerModeOff = false
        if let version = OSVersion(osVersion), version.major == 16,
            let status = try? lockdown.value(forKey: "DeveloperModeStatus", domain: "com.apple.security.mac.amfi")
        {
            developerModeOff = status.boolValue == false
        }
        throw DeviceError.debugserverUnavailable(
            udid: udid, deviceName: try lockdown.string(forKey: "DeviceName"), osVersion: osVersion,
            developerModeOff: developerModeOff, call: refusal)
    }
}

extension DeviceSession {
    /// Launches the installed app through a debugserver forwarded to `127.0.0.1:port` by a sidecar
    /// engine (pymobiledevice3); the app is looked up through lockdown's installation_proxy, as on iOS ≤ 16.
    func launch(
        _ request: LaunchRequest, forwardedPort port: UInt16, forwarder: String, observer: any LaunchObserver,
        cancellation: CancellationFlag
    ) throws -> LaunchTermination {
        try checkNotCancelled(cancellation)
        return try forgettingLocationOnFailure(of: request.bundleID) {
            let app = try withLockdown { device, lockdown in
                try lookUp(request.bundleID, on: device, lockdown: lockdown)
            }
            var run = LaunchRun(
                client: GDBRemoteClient(
                    transport: try LoopbackTCPTransport(port: port, udid: udid, forwarder: forwarder), udid: udid),
                udid: udid,
                bundleID: request.bundleID, observer: observer, cancellation: cancellation,
                deviceLeft: { [self] in deviceLeft() })
            return try run.run(
                executable: app.executable, workingDirectory: app.container, arguments: request.arguments,
                environment: request.environment)
        }
    }

    /// The app's executable path and data container: remembered from the last lookup, else from
    /// installation_proxy (started on `lockdown`).
    private func lookUp(_ bundleID: String, on device: DeviceHandle, lockdown: LockdownClient) throws -> AppLocation {
        if let known = appLocations[bundleID] { return known }
        let installer = try InstallationProxyClient(
            device: device, service: try lockdown.startService(InstallationProxyClient.service))
        return try lookUp(bundleID, with: installer)
    }

    /// Asks installd where the app is on `installer`'s connection, and remembers it.
    func lookUp(_ bundleID: String, with installer: InstallationProxyClient) throws -> AppLocation {
        let attributes = try installer.lookup(
            bundleID: bundleID, attributes: ["CFBundleIdentifier", "CFBundleExecutable", "Path", "Container"])
        guard let attributes, let path = attributes["Path"]?.stringValue,
            let executable = attributes["CFBundleExecutable"]?.stringValue
        else {
            throw DeviceError.appNotInstalled(bundleID: bundleID, udid: udid)
        }
        let location = AppLocation(executable: path + "/" + executable, container: attributes["Container"]?.stringValue)
        appLocations[bundleID] = location
        return location
    }
}
