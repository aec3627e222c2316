/// What launches the app on a device (install and uninstall go through lockdown for every engine but devicectl).
package enum LaunchEngine: String, Sendable, Hashable, Codable, CaseIterable {
    /// libimobiledevice's lockdown debugserver (iOS ≤ 16), driven by our GDB-remote loop.
    case libimobiledevice
    /// `pymobiledevice3 developer debugserver start-server` forwards debugserver (over its tunnel on iOS 17+)
    /// to 127.0.0.1; our GDB-remote loop drives it there.
    case pymobiledevice3
    /// `xcrun devicectl` (macOS, Xcode 16+): installs and launches with `--console`.
    case devicectl
}

/// `--engine`: pick per device, or force one engine for every device.
package enum EngineSelection: Sendable, Hashable, CustomStringConvertible {
    /// Each device gets the engine its iOS version and the host call for (`EngineChoice.decide`).
    case auto
    /// Every device uses this engine; a device it cannot serve is skipped with advice.
    case forced(LaunchEngine)

    /// `auto` or an engine's name; `nil` for anything else.
    package init?(_ text: String) {
        if text == "auto" {
            self = .auto
        } else if let engine = LaunchEngine(rawValue: text) {
            self = .forced(engine)
        } else {
            return nil
        }
    }

    /// The `--engine` value: `auto` or the engine's name.
    package var description: String {
        switch self {
        case .auto: return "auto"
        case .forced(let engine): return engine.rawValue
        }
    }

    /// Every accepted spelling, for help and error texts.
    package static let spellings = ["auto"] + LaunchEngine.allCases.map(\.rawValue)
}

/// What this computer offers to launch with: found once per command (see `EngineHost.detect` in the
/// launchbench executable), injected in tests.
package struct EngineHost: Sendable, Hashable {
    /// devicectl exists only on macOS.
    package var isMacOS: Bool
    /// The selected Xcode's version (`xcodebuild -version`), `nil` when there is none.
    package var xcodeVersion: OSVersion?
    /// The `pymobiledevice3` executable found (see Documentation/Engines.md), `nil` when not installed.
    package var pymobiledevice3: String?
    /// Why `pymobiledevice3` is `nil` when that is not "not installed": a setting that points at nothing,
    /// named with its fix (said instead of the install command, which would not help).
    package var pymobiledevice3Problem: String?
    /// Where pymobiledevice3 was looked for, and each venv passed over with why, when none was found: the
    /// advice names them, so a user sees which folders were searched and which venv was refused.
    package var pymobiledevice3Search: String?

    /// What this host offers: macOS with Xcode (for devicectl), and where pymobiledevice3 is, if found.
    package init(
        isMacOS: Bool, xcodeVersion: OSVersion? = nil, pymobiledevice3: String? = nil,
        pymobiledevice3Problem: String? = nil, pymobiledevice3Search: String? = nil
    ) {
        self.isMacOS = isMacOS
        self.xcodeVersion = xcodeVersion
        self.pymobiledevice3 = pymobiledevice3
        self.pymobiledevice3Problem = pymobiledevice3Problem
        self.pymobiledevice3Search = pymobiledevice3Search
    }

    /// A host with libimobiledevice only (what a driver that knows no other engine assumes).
    package static let libimobiledeviceOnly = EngineHost(isMacOS: false)

    /// devicectl's `device process launch --console` arrived with Xcode 16.
    package var hasDevicectl: Bool { isMacOS && (xcodeVersion.map { $0.major >= 16 } ?? false) }
}

/// The engine a device gets, or why it gets none.
package enum EngineDecision: Sendable, Hashable {
    /// Launch with `engine`; `reason` says why in a sentence (shown by `devices`, kept in run.json).
    case use(LaunchEngine, reason: String)
    /// No engine can launch on the device; `advice` names exactly what to install or change.
    case unavailable(advice: String)

    /// The engine to use, `nil` when none can launch on the device.
    package var engine: LaunchEngine? {
        if case .use(let engine, _) = self { return engine }
        return nil
    }

    /// The reason or the advice.
    package var explanation: String {
        switch self {
        case .use(_, let reason): return reason
        case .unavailable(let advice): return advice
        }
    }
}
