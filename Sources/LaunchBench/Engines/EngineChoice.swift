/// Which engine launches on which device: libimobiledevice up to iOS 16 (lockdown offers debugserver);
/// from iOS 17 on devicectl on macOS with Xcode 16+, else pymobiledevice3 when installed, else none.
package enum EngineChoice {
    /// The pinned pymobiledevice3 (its CLI changes between majors; Documentation/Engines.md).
    package static let pymobiledevice3Version = "11.45.0"
    /// What installs it, in a clone of launchbench, and anywhere else. Not `pip install` into the system
    /// Python: Debian 12 and Ubuntu 23.04+ refuse it (PEP 668, `externally-managed-environment`), as Homebrew's
    /// Python does; pipx and a venv of its own work on both and on macOS.
    package static let pymobiledevice3Install =
        "`Scripts/bootstrap --with-pymobiledevice3` (in a launchbench clone), "
        + "`pipx install pymobiledevice3==\(pymobiledevice3Version)` (pipx: `sudo apt-get install pipx` or "
        + "`brew install pipx`), or a venv of its own: `python3 -m venv ~/.venv-pmd3 && ~/.venv-pmd3/bin/pip "
        + "install pymobiledevice3==\(pymobiledevice3Version)`, then `export "
        + "LAUNCHBENCH_PYMOBILEDEVICE3=~/.venv-pmd3/bin/pymobiledevice3`"

    /// The decision for `device` under `selection` on `host`.
    package static func decide(for device: DeviceInfo, selection: EngineSelection, host: EngineHost) -> EngineDecision {
        let version = device.version
        let modern = version.map { !$0.offersDebugserver } ?? false
        let ios = version.map { "iOS \($0)" } ?? "iOS \"\(device.osVersion)\""
        switch selection {
        case .forced(.libimobiledevice):
            if modern { return .unavailable(advice: libimobiledeviceCannot(ios) + " " + modernAdvice(host)) }
            return .use(.libimobiledevice, reason: "forced with --engine libimobiledevice")
        case .forced(.pymobiledevice3):
            guard let path = host.pymobiledevice3 else {
                return .unavailable(
                    advice: "--engine pymobiledevice3: "
                        + (host.pymobiledevice3Problem.map { $0 + "; to install it: " + pymobiledevice3Install + "." }
                            ?? "pymobiledevice3 is not installed. Install it with " + pymobiledevice3Install + "."
                            + (host.pymobiledevice3Search.map { " Not found: " + $0 + "." } ?? "")))
            }
            return .use(.pymobiledevice3, reason: "forced with --engine pymobiledevice3 (\(path))")
        case .forced(.devicectl):
            guard host.hasDevicectl else {
                return .unavailable(advice: "--engine devicectl: " + devicectlMissing(host))
            }
            guard modern else {
                return .unavailable(
                    advice: "--engine devicectl: \(ios) is older than iOS 17, which devicectl "
                        + "(CoreDevice) needs; use --engine auto (libimobiledevice).")
            }
            return .use(.devicectl, reason: "forced with --engine devicectl")
        case .auto:
            guard modern else {
                return .use(
                    .libimobiledevice,
                    reason: version == nil
                        ? "\(ios) cannot be read; trying lockdown's debugserver"
                        : "\(ios) offers debugserver through lockdown")
            }
            if host.hasDevicectl {
                return .use(
                    .devicectl,
                    reason: "\(ios): lockdown has no debugserver; Xcode \(host.xcodeVersion!) "
                        + "provides devicectl")
            }
            if let path = host.pymobiledevice3 {
                return .use(
                    .pymobiledevice3,
                    reason: "\(ios): lockdown has no debugserver; pymobiledevice3 "
                        + "forwards it over \(Pymobiledevice3Transport(for: device).reachDescription) (\(path))")
            }
            return .unavailable(advice: libimobiledeviceCannot(ios) + " " + modernAdvice(host))
        }
    }

    private static func libimobiledeviceCannot(_ ios: String) -> String {
        "It runs \(ios), and from iOS 17 on the device no longer offers debugserver through lockdown, so "
            + "libimobiledevice cannot launch apps on it."
    }

    /// What to install to measure an iOS 17+ device on this host.
    static func modernAdvice(_ host: EngineHost) -> String {
        var advice =
            host.pymobiledevice3Problem.map {
                "pymobiledevice3 would launch on it, but " + $0 + "; to install it: " + pymobiledevice3Install + "."
            }
            ?? "Install pymobiledevice3 (Linux, macOS, Windows): " + pymobiledevice3Install
            + ", then run again (launchbench picks it for iOS 17+ devices)."
            + (host.pymobiledevice3Search.map { " Not found: " + $0 + "." } ?? "")
        if host.isMacOS { advice += " Or install Xcode 16 or later, whose devicectl launchbench uses." }
        return advice + " Or measure a device on iOS 16 or earlier."
    }

    private static func devicectlMissing(_ host: EngineHost) -> String {
        guard host.isMacOS else {
            return "devicectl exists only on macOS with Xcode 16 or later; on this computer use --engine "
                + "pymobiledevice3 (install: " + pymobiledevice3Install + ")."
        }
        let found = host.xcodeVersion.map { "Xcode \($0) is selected" } ?? "no Xcode was found (xcodebuild -version)"
        return "devicectl's launch with --console needs Xcode 16 or later, and \(found). Install Xcode 16+ and "
            + "select it with `sudo xcode-select -s /Applications/Xcode.app`."
    }
}
