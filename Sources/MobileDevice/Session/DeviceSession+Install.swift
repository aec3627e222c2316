import Foundation
import LaunchBench

extension DeviceSession {
    /// Removes the app; succeeds when it is not installed.
    func uninstall(bundleID: String, timeout: Duration, cancellation: CancellationFlag) throws {
        try runInstallerCommand(.uninstall, bundleID: bundleID, timeout: timeout, cancellation: cancellation) {
            installer, progress, _, _ in
            // Ask first: what installd answers for an unknown id differs between iOS versions.
            guard try installer.lookup(bundleID: bundleID, attributes: ["CFBundleIdentifier"]) != nil else {
                return false
            }
            try installer.startUninstall(bundleID: bundleID, progress: progress)
            return true
        }
    }

    /// Uploads the app to PublicStaging and installs it; returns when installd says Complete.
    func install(_ app: AppBundle, timeout: Duration, cancellation: CancellationFlag) throws {
        try runInstallerCommand(
            .install, bundleID: app.bundleID, alsoStarting: [AFCClient.service], timeout: timeout,
            cancellation: cancellation
        ) { installer, progress, device, services in
            let staged = try AppUploader(
                afc: try AFCClient(device: device, service: services[0]), cancellation: cancellation
            ).upload(app)
            try installer.startInstall(packagePath: staged.packagePath, options: staged.options, progress: progress)
            return true
        }
    }

    /// One installd command, watched from before it is sent: the device's events are logged first (a detach
    /// ends the wait) and the app's cached locations dropped (the app moves). `send` sends the command through
    /// the installer (the device and the `alsoStarting` services at hand), or returns `false` when there is
    /// nothing to do; then the outcome is awaited until `timeout`.
    private func runInstallerCommand(
        _ step: InstallStep, bundleID: String, alsoStarting otherServices: [String] = [], timeout: Duration,
        cancellation: CancellationFlag,
        send: (InstallationProxyClient, InstallProgress, DeviceHandle, [ServiceDescriptor]) throws -> Bool
    ) throws {
        let deadline = ContinuousClock.now + timeout
        try checkNotCancelled(cancellation)
        appLocations = [:]  // the app moves
        try detectingLoss(during: "\(step.rawValue) of \(bundleID)") {
            let events = try DeviceEventLog()
            defer { events.stop() }
            let (device, name, _, services) = try startServices([InstallationProxyClient.service] + otherServices)
            let installer = try InstallationProxyClient(device: device, service: services[0])
            let progress = InstallProgress()
            guard try send(installer, progress, device, Array(services.dropFirst())) else { return }
            try wait(
                for: progress, step: step, bundleID: bundleID, deviceName: name, deadline: deadline,
                timeout: timeout, events: events, cancellation: cancellation)
        }
    }

    /// installd answers asynchronously (PROTOCOLS §5.4): wait for the callback's outcome until it
    /// arrives, the device leaves, the task is cancelled, or time runs out. The outcome wakes the wait
    /// at once; detach, cancellation and the deadline are checked every `checkInterval`. The client is
    /// freed only after this returns.
    func wait(
        for progress: InstallProgress, step: InstallStep, bundleID: String, deviceName: String,
        deadline: ContinuousClock.Instant, timeout: Duration, events: DeviceEventLog, cancellation: CancellationFlag
    ) throws {
        while true {
            switch progress.outcome {
            case .complete?:
                return
            case .failed(let error, let description, let detail)?:
                throw DeviceError.installFailed(
                    step: step, bundleID: bundleID, udid: udid, deviceName: deviceName, error: error,
                    description: description, detail: detail)
            case nil:
                break
            }
            if events.contains(.detached(udid: udid)) {
                throw DeviceError.deviceLost(udid: udid, operation: "\(step.rawValue) of \(bundleID)")
            }
            if cancellation.isCancelled { throw CancellationError() }
            if ContinuousClock.now >= deadline {
                let last = progress.lastStatus.map { " (last step: \($0))" } ?? ""
                throw DeviceError.timedOut(
                    operation: "\(step.rawValue) of \(bundleID)\(last)", udid: udid,
                    seconds: timeout.totalSeconds)
            }
            progress.waitForOutcome(upTo: min(Self.checkInterval, deadline - ContinuousClock.now))
        }
    }

    /// How often a wait for installd looks at detach events, cancellation and the deadline.
    static let checkInterval: Duration = .milliseconds(50)
}
