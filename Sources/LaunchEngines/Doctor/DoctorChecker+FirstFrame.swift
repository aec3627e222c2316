import LaunchBench

extension DoctorChecker {
    /// The first-frame row for the user's app: whether UIKit's Initial Frame Rendering END came, whether its
    /// BEGIN (0x2B870030) anchored it, and how many stray ENDs the launch sent before the BEGIN (some apps do on
    /// real phones, py-ios-device PR #127). A fact to report, never needed: LaunchProbe's marker measures it too.
    static func firstFrame(_ phases: DyldLaunchPhases) -> DoctorRow {
        let strays = phases.strayFrameEndTimestamps.count
        let strayText =
            strays == 0
            ? "no stray END before it"
            : "\(strays) stray END\(strays == 1 ? "" : "s") before the BEGIN (this app sends them: never its first "
                + "frame)"
        let markerFix =
            "A stray END could stand in for the first frame: add LaunchProbe's firstFrame marker (README, "
            + "\"Measuring after-main with LaunchProbe\"), which launchbench then takes. " + captureFix
        switch (phases.firstFrameMs, phases.firstFrameSource) {
        case (let ms?, .uikitAnchored?):
            return .holds(
                .firstFrame,
                "UIKit's Initial Frame Rendering ended \(DecimalText.fixed(ms, maxFractionDigits: 1)) ms after exec, "
                    + "after its BEGIN (anchored); \(strayText)", needed: false)
        case (let ms?, _):
            return .fails(
                .firstFrame,
                "an Initial Frame Rendering END \(DecimalText.fixed(ms, maxFractionDigits: 1)) ms after exec, but "
                    + "UIKit's BEGIN (0x2B870030) never came: the first frame is unanchored (the first END after "
                    + "didFinishLaunching); \(strays) END\(strays == 1 ? "" : "s") before didFinishLaunching",
                fix: markerFix, needed: false)
        case (nil, _):
            let detail =
                phases.warnings.first { $0.contains("Initial Frame Rendering END(s) after main") }
                ?? "no Initial Frame Rendering (0x31CA0006) end on the app's main thread"
            return .fails(
                .firstFrame, detail,
                fix: "Without it the first frame comes from LaunchProbe's marker only. " + captureFix,
                needed: false)
        }
    }
}
