import LaunchBench

/// How the app's UIKit sends Initial Frame Rendering's kdebug events on the emulated phone (`uikitFrames` in an
/// app profile; `launchbench emulator --stray-frame-ends N` for every app of a phone, an app profile's fields
/// winning).
///
/// Real apps do not all send them once and in order: some send an Initial Frame Rendering END (`0x31CA0006`)
/// before UIKit's BEGIN (`0x2B870030`), then the BEGIN, then the END at their first frame (py-ios-device PR
/// #127, commit 4ee38c6, `ios_device/util/lifecycle.py`, seen with App Store apps on a real phone, JD4iPhone
/// among them). Where in the launch such an END comes is not public; the emulator puts it inside
/// `didFinishLaunchingWithOptions` (an app that draws while setting up, e.g. a splash window flushed early),
/// which is modelled. `begin: false` is a UIKit that sends no BEGIN at all: which iOS versions still send the
/// 0x2B87 codes is unverified (Documentation/RealPhoneStatus.md), so a phone without it is possible.
package struct UIKitFrameEvents: Codable, Sendable, Hashable {
    /// ENDs the app's main thread sends before the BEGIN, inside didFinishLaunching (default 0, at most 100).
    package var strayEnds: Int?
    /// Whether UIKit's Initial Frame Rendering BEGIN (code 12) comes (default true).
    package var begin: Bool?

    package init(strayEnds: Int? = nil, begin: Bool? = nil) {
        self.strayEnds = strayEnds
        self.begin = begin
    }

    /// This setting's fields where set, else `fallback`'s (an app profile over the emulator's switch).
    package func over(_ fallback: UIKitFrameEvents?) -> UIKitFrameEvents {
        UIKitFrameEvents(strayEnds: strayEnds ?? fallback?.strayEnds, begin: begin ?? fallback?.begin)
    }

    /// Rejects a count no launch could send.
    func validate(prefix: String) throws {
        if let strayEnds, !(0...100).contains(strayEnds) {
            throw AppProfileError("\(prefix).strayEnds \(strayEnds) must be from 0 to 100")
        }
    }
}
