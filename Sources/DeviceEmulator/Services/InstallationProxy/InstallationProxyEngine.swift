import Foundation
import LaunchBench

/// installation_proxy as pure logic: one request dictionary in, the messages to send back out (each
/// after an emulated delay), with the status sequences and percentages of a real device (§5.3).
struct InstallationProxyEngine {
    /// One reply message and the emulated ms to wait before sending it.
    struct Step {
        var delayMs: Double
        var message: [String: Any]
        /// Runs right before this message is sent (e.g. the app appears when `Complete` goes out).
        var effect: (() -> Void)?
        /// The app the command turned out to be about (an install learns it from the package).
        var bundleID: String? = nil
    }

    static let installStatuses: [(Int, String)] = [
        (5, "CreatingStagingDirectory"), (15, "ExtractingPackage"), (20, "InspectingPackage"),
        (20, "TakingInstallLock"),
        (30, "PreflightingApplication"), (30, "InstallingEmbeddedProfile"), (40, "VerifyingApplication"),
        (50, "CreatingContainer"), (60, "InstallingApplication"), (70, "PostflightingApplication"),
        (80, "SandboxingApplication"), (90, "GeneratingApplicationMap"),
    ]
    /// Emulated time per install status message (a whole install ≈ 0.6 s plus the profile's `delayMs`).
    static let stepMs = 50.0
    /// Apps per Browse batch.
    static let browseBatch = 20

    let state: DeviceServiceState
    /// Told of each install as its `Complete` goes out, with the install's number (a phone's prelaunch follows).
    var installed: (@Sendable (InstalledApp, Int) -> Void)? = nil

    /// The replies to `request`.
    func handle(_ request: [String: Any]) -> [Step] {
        let command = request["Command"] as? String
        let options = request["ClientOptions"] as? [String: Any] ?? [:]
        switch command {
        case "Install", "Upgrade":
            return install(packagePath: request["PackagePath"] as? String, options: options)
        case "Uninstall":
            return uninstall(request["ApplicationIdentifier"] as? String)
        case "Lookup":
            return [Step(delayMs: 5, message: ["LookupResult": lookup(options), "Status": "Complete"])]
        case "Browse":
            return browse(options)
        case nil:
            return [error("MissingCommand", "No command was given")]
        default:
            return [error("UnknownCommand", "Unknown command \(command!)")]
        }
    }

    // MARK: - Install

    private func install(packagePath: String?, options: [String: Any]) -> [Step] {
        guard let packagePath, !packagePath.isEmpty else {
            return [error("MissingPackagePath", "No PackagePath was given")]
        }
        guard let url = AFCEngine(root: state.mediaRoot).resolve(packagePath) else {
            return [error("PackageExtractionFailed", "Package path \(packagePath) is outside the media folder")]
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            return [error("PackageExtractionFailed", "Could not find the package at \(packagePath)")]
        }
        let app: InstalledApp
        do {
            // A Developer package is a staged .app folder; otherwise the file is an .ipa zip.
            app = try AppBundleLoader.load(url)
        } catch let failure {
            return Array(statusSteps(upTo: 20, stepMs: Self.stepMs)) + [error(failure.error, failure.description)]
        }
        if let expected = options["CFBundleIdentifier"] as? String, expected != app.bundleID {
            return Array(statusSteps(upTo: 20, stepMs: Self.stepMs))
                + [error("PackageInspectionFailed", "Bundle identifier \(app.bundleID) does not match \(expected)")]
        }
        let number = state.nextInstallNumber(app.bundleID)
        let extraMs = (app.profile.install?.delayMs ?? 0) + state.installDelayMs
        let stepMs = Self.stepMs + extraMs / Double(Self.installStatuses.count)
        if let failure = failure(for: app, installNumber: number) {
            return Array(statusSteps(upTo: 40, stepMs: stepMs)) + [failure]
        }
        let state = self.state
        return statusSteps(upTo: 90, stepMs: stepMs)
            + [
                Step(
                    delayMs: stepMs, message: ["Status": "Complete"],
                    effect: { [installed] in
                        state.install(app)
                        installed?(app, number)
                    },
                    bundleID: app.bundleID)
            ]
    }

    private func failure(for app: InstalledApp, installNumber: Int) -> Step? {
        let chosen: InstallFailure?
        if let deviceWide = state.installFailure {
            chosen = deviceWide
        } else if let failure = app.profile.install?.failure {
            if let when = failure.when {
                var random = SeededRandom(
                    seed: app.profile.seed ?? state.seed ?? 0, parts: [app.bundleID, "install", String(installNumber)])
                let hit =
                    when.launches?.contains(installNumber) == true
                    || (when.probability.map { random.unit() < $0 } ?? false)
                chosen = hit ? failure : nil
            } else {
                chosen = failure
            }
        } else {
            chosen = nil
        }
        guard let chosen else { return nil }
        let description =
            chosen.description
            ?? "Failed to verify code signature of \(app.path) : 0xe8008015 (A valid provisioning profile for this executable was not found.)"
        return error(
            chosen.error ?? "ApplicationVerificationFailed", description, detail: chosen.detail ?? -402_620_395)
    }

    private func statusSteps(upTo percent: Int, stepMs: Double) -> [Step] {
        Self.installStatuses.filter { $0.0 <= percent }.map {
            Step(delayMs: stepMs, message: ["PercentComplete": $0.0, "Status": $0.1])
        }
    }

    // MARK: - Uninstall, Lookup, Browse

    private func uninstall(_ bundleID: String?) -> [Step] {
        guard let bundleID else { return [error("MissingApplicationIdentifier", "No ApplicationIdentifier was given")] }
        let state = self.state
        return [
            Step(delayMs: Self.stepMs, message: ["PercentComplete": 50, "Status": "RemovingApplication"]),
            Step(delayMs: Self.stepMs, message: ["PercentComplete": 90, "Status": "GeneratingApplicationMap"]),
            // A real device completes for unknown ids too.
            Step(delayMs: Self.stepMs, message: ["Status": "Complete"], effect: { state.uninstall(bundleID) }),
        ]
    }

    private func lookup(_ options: [String: Any]) -> [String: Any] {
        let apps = matchingApps(options)
        let wanted = options["BundleIDs"] as? [String]
        var result: [String: Any] = [:]
        for app in apps where wanted?.contains(app.bundleID) ?? true {
            result[app.bundleID] = filtered(app.attributes, options)
        }
        return result
    }

    private func browse(_ options: [String: Any]) -> [Step] {
        let apps = matchingApps(options).sorted { $0.bundleID < $1.bundleID }
        var steps: [Step] = []
        var index = 0
        while index < apps.count {
            let batch = apps[index..<min(index + Self.browseBatch, apps.count)]
            steps.append(
                Step(
                    delayMs: 5,
                    message: [
                        "CurrentAmount": batch.count, "CurrentIndex": index,
                        "CurrentList": batch.map { filtered($0.attributes, options) },
                        "Status": "BrowsingApplications", "Total": apps.count,
                    ]))
            index += batch.count
        }
        return steps + [Step(delayMs: 5, message: ["Status": "Complete"])]
    }

    /// Apps of the requested `ApplicationType` (all emulated apps are `User` apps).
    private func matchingApps(_ options: [String: Any]) -> [InstalledApp] {
        let type = options["ApplicationType"] as? String
        guard type == nil || type == "User" || type == "Any" else { return [] }
        return Array(state.installedApps.values)
    }

    private func filtered(_ attributes: [String: Any], _ options: [String: Any]) -> [String: Any] {
        guard let keys = options["ReturnAttributes"] as? [String] else { return attributes }
        return attributes.filter { keys.contains($0.key) }
    }

    private func error(_ name: String, _ description: String, detail: Int? = nil) -> Step {
        var message: [String: Any] = ["Error": name, "ErrorDescription": description]
        if let detail { message["ErrorDetail"] = detail }
        return Step(delayMs: 5, message: message)
    }
}
