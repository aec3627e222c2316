import Foundation
import LaunchBench

extension DeviceSession {
    /// Uninstall and install on one lockdown session, with the upload to PublicStaging running while
    /// installd uninstalls: AFC and installation_proxy are separate services and the upload does not
    /// touch the installed app (PROTOCOLS §9.2 leaves the order to the tool). The Install is sent only
    /// after the uninstall completed, so the app is fully removed before it comes back.
    func reinstall(
        _ app: AppBundle, uninstallTimeout: Duration, installTimeout: Duration, cancellation: CancellationFlag
    ) throws -> ReinstallTimings {
        try checkNotCancelled(cancellation)
        appLocations = [:]  // the app moves
        let clock = ContinuousClock()
        return try detectingLoss(during: "reinstall of \(app.bundleID)") {
            let events = try DeviceEventLog()
            defer { events.stop() }
            // One installation_proxy connection per command, as installd serves one command at a time.
            let (device, name, _, services) = try startServices(
                [InstallationProxyClient.service, InstallationProxyClient.service, AFCClient.service])
            let uninstaller = try InstallationProxyClient(device: device, service: services[0])
            let installer = try InstallationProxyClient(device: device, service: services[1])
            let afc = try AFCClient(device: device, service: services[2])

            let uninstallStart = clock.now
            let uninstallDeadline = uninstallStart + uninstallTimeout
            var removal: InstallProgress?
            // Ask first: what installd answers for an unknown id differs between iOS versions.
            if try uninstaller.lookup(bundleID: app.bundleID, attributes: ["CFBundleIdentifier"]) != nil {
                let progress = InstallProgress()
                try uninstaller.startUninstall(bundleID: app.bundleID, progress: progress)
                removal = progress
            }
            let lookedUp = clock.now
            let waitForRemoval = { [self] in
                guard let removal else { return }
                try wait(
                    for: removal, step: .uninstall, bundleID: app.bundleID, deviceName: name,
                    deadline: uninstallDeadline, timeout: uninstallTimeout, events: events, cancellation: cancellation)
            }

            let uploadStart = clock.now
            let staged: (packagePath: String, options: PropertyListValue)
            do {
                staged = try AppUploader(afc: afc, cancellation: cancellation).upload(app)
            } catch {
                // Let installd finish the uninstall (or the wait end by timeout, detach or Ctrl-C) before
                // the clients go: freeing one abandons its command half way (PROTOCOLS §5.4).
                try? waitForRemoval()
                throw error
            }
            let upload = clock.now - uploadStart
            try waitForRemoval()
            // Nothing to remove: the lookup was the whole step.
            let uninstall = (removal == nil ? lookedUp : removal?.finishedAt ?? clock.now) - uninstallStart

            let installStart = clock.now
            // The upload ran in the uninstall's shadow: the install gets its whole timeout from here.
            let installDeadline = installStart + installTimeout
            let progress = InstallProgress()
            try installer.startInstall(packagePath: staged.packagePath, options: staged.options, progress: progress)
            try wait(
                for: progress, step: .install, bundleID: app.bundleID, deviceName: name, deadline: installDeadline,
                timeout: installTimeout, events: events, cancellation: cancellation)
            let install = (progress.finishedAt ?? clock.now) - installStart
            // Where the app landed, on the connection at hand: the cold launch needs no service of its own for
            // it. A failed lookup is left to the launch, which asks again.
            _ = try? lookUp(app.bundleID, with: installer)
            return ReinstallTimings(uninstall: uninstall, upload: upload, install: install)
        }
    }
}
