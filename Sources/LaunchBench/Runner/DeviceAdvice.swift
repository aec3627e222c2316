/// What the runner tells the user about a device before measuring it, from its iOS version.
package enum DeviceAdvice: Sendable, Hashable {
    /// The device cannot be measured; the message says why and what to do.
    case skip(String)
    /// The device is measured; the notes explain which values to expect.
    case measure(notes: [String])

    /// The advice for `device` under `plan`, launched by the engine `engine` decided on (by default the
    /// choice of a host with libimobiledevice only); `readsKdebug` says whether kdebug can be read here.
    package static func advice(
        for device: DeviceInfo, plan: RunPlan,
        engine: EngineDecision? = nil, readsKdebug: Bool = false
    ) -> DeviceAdvice {
        let advice = versionAdvice(for: device, plan: plan, engine: engine, readsKdebug: readsKdebug)
        // iOS 27+: what is assumed from iOS 26 is said on every device so measured (run.json, every report).
        guard case .measure(let notes) = advice, let note = device.version?.assumedFactsNote else { return advice }
        return .measure(notes: notes + ["\(device.name) (\(device.modelName), \(device.udid)): " + note])
    }

    private static func versionAdvice(
        for device: DeviceInfo, plan: RunPlan, engine: EngineDecision?, readsKdebug: Bool
    ) -> DeviceAdvice {
        let label = "\(device.name) (\(device.modelName), \(device.udid))"
        let engine = engine ?? EngineChoice.decide(for: device, selection: .auto, host: .libimobiledeviceOnly)
        if case .unavailable(let advice) = engine { return .skip("Skipping \(label): \(advice)") }
        guard let version = device.version else {
            return .measure(notes: [
                "\(label) reports iOS version \"\(device.osVersion)\", which cannot be read; measuring anyway."
            ])
        }
        let wantsKdebug = plan.premainSource(for: device) == .kdebug
        if wantsKdebug && readsKdebug {
            let why =
                version.dyldStatistics.prints(withOverride: plan.setsDyldOverride)
                ? "--premain kdebug (dyld's printed statistics are checked against it)"
                : "dyld prints no pre-main statistics on iOS \(version)"
            return .measure(notes: [
                "\(label): \(why), so the pre-main phases come from dyld's own kdebug events (the instruments "
                    + "service's core profile session), and so does the first frame: the app needs no LaunchProbe "
                    + "(its [launchbench] markers add after-main points when present)."
            ])
        }
        switch version.dyldStatistics {
        case .always:
            return .measure(notes: [])
        case .onlyWithOverride where plan.setsDyldOverride:
            return .measure(notes: [
                "\(label), iOS \(version): an override variable is set, so dyld takes the dyld2 path and prints "
                    + "pre-main statistics; after-main comes from the app's [launchbench] markers."
            ])
        case .onlyWithOverride:
            return .measure(notes: [
                "\(label), iOS \(version): dyld3 prints pre-main statistics only when an override variable such as "
                    + "DYLD_INSERT_LIBRARIES is set (as Xcode sets it for its Main Thread Checker: --env "
                    + "DYLD_INSERT_LIBRARIES=/Developer/usr/lib/libMainThreadChecker.dylib, with the developer disk image "
                    + "mounted); "
                    + "after-main comes from the app's [launchbench] markers."
            ])
        case .never:
            return .measure(notes: [
                "\(label), iOS \(version): dyld4 does not print pre-main statistics, so dyld phases are not "
                    + "available; the headline numbers are time to main (main_ms, pre-main counted from process "
                    + "start) and first frame (first_frame_ms), from the app's [launchbench] markers (add the "
                    + "LaunchProbe library to the app)."
            ])
        }
    }
}
