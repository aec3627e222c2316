/// The dylib guard: no image from inside the app bundle may load at launch, nor be embedded in
/// its `Frameworks/` folder, unless the allow list names it.
///
/// The seed talk's way to keep a launch fast once it is fast: every dynamic library costs pre-main
/// time, so a new one must be a decision, not an accident of a dependency update.
package struct DylibGuard: Sendable, Hashable {
    /// One image that loaded (or is embedded) without being allowed.
    package struct Violation: Sendable, Hashable, Codable {
        /// The image's path inside the bundle (`Frameworks/Foo.framework/Foo`) or the
        /// `Frameworks/` entry (`Frameworks/Foo.framework`).
        package var image: String
        /// Where it was seen: `nil` device for the embedded-frameworks check before launching.
        package var deviceUDID: String?
        /// The device's name, for the sentence.
        package var deviceName: String?
        /// The iteration of the launch that loaded it.
        package var iteration: Int?
        /// Cold or warm, for that launch.
        package var kind: LaunchKind?
        /// The launch's raw log, relative to the results folder.
        package var logPath: String?

        /// One sentence for CI logs.
        package var description: String {
            guard let deviceUDID else {
                return "\(image) is embedded in the app's Frameworks/ folder but not in the allowed-dylibs list."
            }
            let launch = [kind.map { "\($0.rawValue) launch" }, iteration.map { "iteration \($0)" }]
                .compactMap { $0 }.joined(separator: ", ")
            let log = logPath.map { " (log: \($0))" } ?? ""
            return "\(image) loaded at launch on \(deviceName ?? deviceUDID) (\(deviceUDID)), \(launch), "
                + "but is not in the allowed-dylibs list\(log)."
        }
    }

    /// The images the app may load from its bundle (`--allowed-dylibs`).
    package var allowed: AllowedDylibs
    /// The app's main executable (inside the bundle, always loaded, never judged).
    package var executable: String?

    /// A guard for an app whose main executable is `executable` (its name inside the bundle).
    package init(allowed: AllowedDylibs, executable: String?) {
        self.allowed = allowed
        self.executable = executable
    }

    /// Checks the embedded `Frameworks/` entries (`AppBundle.frameworks`), before any launch.
    package func check(embeddedFrameworks: [String]) -> [Violation] {
        embeddedFrameworks.filter { !allowed.allows("Frameworks/" + $0) }.map { Violation(image: "Frameworks/" + $0) }
    }

    /// Checks the images the launches loaded from inside the bundle (`Sample.bundleImages`): each device's
    /// first load of each image, in reading order, so an image is reported once per device.
    package func check(launches: GateLaunches) -> [Violation] {
        launches.counts.firstLoads.filter { !isExecutable($0.image) && !allowed.allows($0.image) }
    }

    /// The images to record with `--write-allowed-dylibs`: the embedded frameworks and every bundle image the
    /// launches loaded (each once per device), except the executable.
    package func currentImages(embeddedFrameworks: [String], launches: GateLaunches) -> [String] {
        embeddedFrameworks.map { "Frameworks/" + $0 }
            + launches.counts.firstLoads.map(\.image).filter { !isExecutable($0) }
    }

    private func isExecutable(_ image: String) -> Bool {
        if let executable { return image == executable }
        // Unknown executable: a top-level file without an extension is the app's binary.
        return !image.contains("/") && !image.contains(".")
    }
}

extension DylibGuard.Violation {
    init(image: String) {
        self.init(image: image, deviceUDID: nil, deviceName: nil, iteration: nil, kind: nil, logPath: nil)
    }
}
