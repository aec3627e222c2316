import Foundation
import LaunchBench

extension DeviceSession {
    /// Removes the app; succeeds when it is not installed.
    func uninstall(bundleID: String, timeout: Duration, cancellation: CancellationFlag) throws {
        let deadline = ContinuousClock.now + timeout
        try checkNotCancelled(cancellation)
        appLocations = [:]  // the app moves
        try detectingLoss(during: "uninstall of \(bundleID)") {
            let events = try DeviceEventLog()
            defer { events.stop() }
            let (device, name, _, services) = try startServices([InstallationProxyClient.service])
            let installer = try InstallationProxyClient(device: device, service: services[0])
            // Ask first: what installd answers for an unknown id differs between iOS versions.
            guard try installer.lookup(bundleID: bundleID, attributes: ["CFBundleIdentifier"]) != nil else { return }
            let progress = InstallProgress()
            try installer.startUninstall(bundleID: bundleID, progress: progress)
            try wait(
                for: progress, step: .uninstall, bundleID: bundleID, deviceName: name, deadline: deadline,
                timeout: timeout, events: events, cancellation: cancellation)
        }
    }

    /// Uploads the app to PublicStaging and installs it; returns when installd says Complete.
    func install(_ app: AppBundle, timeout: Duration, cancellation: CancellationFlag) throws {
        let deadline = ContinuousClock.now + timeout
        try checkNotCancelled(cancellation)
        appLocations = [:]  // the app moves
        try detectingLoss(during: "install of \(app.bundleID)") {
            let events = try DeviceEventLog()
            defer { events.stop() }
            let (device, name, _, services) = try startServices([InstallationProxyClient.service, AFCClient.service])
            let installer = try InstallationProxyClient(device: device, service: services[0])
            let staged = try AppUploader(
                afc: try AFCClient(device: device, service: services[1]), cancellation: cancellation
            ).upload(app)
            let progress = InstallProgress()
            try installer.startInstall(packagePath: staged.packagePath, options: staged.options, progress: progress)
            try wait(
                for: progress, step: .install, bundleID: app.bundleID, deviceName: name, deadline: deadline,
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
