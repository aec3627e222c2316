import Foundation

/// Where the wall time of one launch went, as the harness saw it (ms). The cold launch of a reinstall
/// iteration carries the reinstall's steps; every launch carries its own `launchMs`. The steps of a
/// reinstall may overlap (the upload runs while the device uninstalls), so they need not add up to
/// `reinstallMs`.
package struct PhaseTimings: Sendable, Hashable, Codable {
    /// The whole reinstall before this cold launch (uninstall, upload, install).
    package var reinstallMs: Double?
    /// From asking for the uninstall (after the lookup that checks the app is there) until it completed.
    package var uninstallMs: Double?
    /// Copying the app to the device's staging folder.
    package var uploadMs: Double?
    /// From the Install command until installd completed it.
    package var installMs: Double?
    /// The launch: from asking the device to start the app until it was gone.
    package var launchMs: Double?

    /// Phase durations in ms; `nil` for a phase that did not happen.
    package init(
        reinstallMs: Double? = nil, uninstallMs: Double? = nil, uploadMs: Double? = nil, installMs: Double? = nil,
        launchMs: Double? = nil
    ) {
        self.reinstallMs = reinstallMs
        self.uninstallMs = uninstallMs
        self.uploadMs = uploadMs
        self.installMs = installMs
        self.launchMs = launchMs
    }

    /// Nothing was timed (samples written before phases were recorded, or failures before any step).
    package var isEmpty: Bool { self == PhaseTimings() }

    /// For progress lines: `reinstall 812 ms (uninstall 160 ms, upload 12 ms, install 655 ms), launch 270 ms`;
    /// `nil` when nothing was timed.
    package var summary: String? {
        func ms(_ value: Double) -> String { "\(DecimalText.fixed(value, maxFractionDigits: 0)) ms" }
        var parts: [String] = []
        if let reinstallMs {
            let steps = [("uninstall", uninstallMs), ("upload", uploadMs), ("install", installMs)]
                .compactMap { name, value in value.map { "\(name) \(ms($0))" } }
            parts.append("reinstall \(ms(reinstallMs))" + (steps.isEmpty ? "" : " (\(steps.joined(separator: ", ")))"))
        }
        if let launchMs { parts.append("launch \(ms(launchMs))") }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// For live progress lines, the last iteration: `reinstall 0.81 s (upload 0.01 s), cold 0.27 s, warm 0.17 s`.
    /// - Parameters:
    ///   - cold: the cold launch's timings (its reinstall and its launch).
    ///   - warm: the warm launch's timings when it belongs to the same iteration, else `nil`.
    package static func iterationSummary(cold: PhaseTimings?, warm: PhaseTimings?) -> String? {
        func seconds(_ ms: Double) -> String { String(format: "%.2f s", ms / 1000) }
        var parts: [String] = []
        if let reinstall = cold?.reinstallMs {
            // The upload is the step a user can change (app size, cable): name it.
            let upload = cold?.uploadMs.map { " (upload \(seconds($0)))" } ?? ""
            parts.append("reinstall \(seconds(reinstall))\(upload)")
        }
        if let launch = cold?.launchMs { parts.append("cold \(seconds(launch))") }
        if let launch = warm?.launchMs { parts.append("warm \(seconds(launch))") }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    private enum CodingKeys: String, CodingKey {
        case reinstallMs = "reinstall_ms"
        case uninstallMs = "uninstall_ms"
        case uploadMs = "upload_ms"
        case installMs = "install_ms"
        case launchMs = "launch_ms"
    }
}
