/// Where a launch's `first_frame_ms` came from (`first_frame_source` in samples.jsonl, samples.csv and
/// run.json; absent when the first frame was not measured).
package enum FirstFrameSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// UIKit's Initial Frame Rendering END after its BEGIN, on the app's main thread.
    case uikitAnchored = "uikit-anchored"
    /// No BEGIN came: the first END after UIKit's didFinishLaunching (code 26), which a stray END can precede.
    case uikitUnanchored = "uikit-unanchored"
    /// LaunchProbe's `firstFrame` marker.
    case markers

    /// How a report says it.
    package var title: String {
        switch self {
        case .uikitAnchored: return "UIKit, anchored by its BEGIN"
        case .uikitUnanchored: return "UIKit, unanchored (no BEGIN)"
        case .markers: return "LaunchProbe's marker"
        }
    }
}

/// UIKit's first frame of one launch: the first Initial Frame Rendering END (`0x31CA0006`) on the app's main
/// thread after UIKit's Initial Frame Rendering BEGIN (`0x2B870030`, `DBG_ARIADNE` subclass 0x87 code 12).
///
/// Some apps receive an END before the BEGIN (py-ios-device PR #127, commit 4ee38c6,
/// `ios_device/util/lifecycle.py` `format_str`: "some apps receive the Initial Frame Rendering END first, then
/// the BEGIN"; its fixed decoder ends a launch only at an END once a BEGIN was seen, and the PR shows such
/// launches from App Store apps on a real phone). An iOS 26 simulator trace carries `0x31CA0006` about once per
/// frame (benjaminRomano/mperf's test resource), so an END is a frame, not necessarily the first. An END
/// before the BEGIN is a stray: kept and counted, never the first frame. Without a BEGIN the first END after
/// didFinishLaunching (code 26, which UIKit's sequence puts before the first frame) is taken and said to be
/// unanchored. Only the thread that ran `main` (dyld's `LAUNCH_EXECUTABLE` END) counts: UIKit's lifecycle runs
/// on the main thread, and py-ios-device keys its sequence by thread too.
struct UIKitFirstFrame {
    /// The first frame's END (ticks), nil when the trace has none that can be told from a stray.
    var timestamp: UInt64?
    /// Which rule gave it; nil without a first frame.
    var source: FirstFrameSource?
    /// UIKit's Initial Frame Rendering BEGIN (ticks), if it came.
    var begin: UInt64?
    /// The ENDs on the main thread after main and before the anchor (the BEGIN, else code 26): never the frame.
    var strays: [UInt64]
    /// ENDs after main that neither a BEGIN nor code 26 placed (none is taken as the frame).
    var unplaced: Int

    /// UIKit's Initial Frame Rendering BEGIN: `DBG_ARIADNE` (43) subclass 0x87 code 12, any function bits
    /// (py-ios-device `lifecycle.py`, `final_code == 12` opens "Initial Frame Rendering").
    static func isBegin(_ id: KdebugDebugID) -> Bool { id.eventClass == 0x2B && id.subclass == 0x87 && id.code == 12 }

    /// Initial Frame Rendering END: `DBG_IMG` (49) subclass 0xCA code 1, END (`0x31CA0006`).
    static func isEnd(_ id: KdebugDebugID) -> Bool {
        id.eventID == .initialFrameRendering && id.function == .end
    }

    /// Finds the first frame among `records` (by time) on `thread` from `main` on.
    init(_ records: [KdebugRecord], thread: UInt64, main: UInt64) {
        let own = records.filter { $0.threadID == thread && $0.timestamp >= main }
        begin = own.first { Self.isBegin($0.debugID) }?.timestamp
        let beginIndex = own.firstIndex { Self.isBegin($0.debugID) }
        let finishedIndex = own.firstIndex {
            $0.debugID.eventClass == 0x2B && $0.debugID.subclass == 0x87
                && $0.debugID.code == UIKitLifecycle.didFinishLaunchingEnd
        }
        let ends = own.indices.filter { Self.isEnd(own[$0].debugID) }
        strays = []
        unplaced = 0
        guard let anchor = beginIndex ?? finishedIndex else {
            unplaced = ends.count
            return
        }
        strays = ends.filter { $0 < anchor }.map { own[$0].timestamp }
        timestamp = ends.first { $0 > anchor }.map { own[$0].timestamp }
        if timestamp != nil { source = beginIndex == nil ? .uikitUnanchored : .uikitAnchored }
    }

    /// What the launch's warnings say about it, if anything.
    var warnings: [String] {
        var said: [String] = []
        if source == .uikitUnanchored {
            said.append(
                "UIKit's Initial Frame Rendering BEGIN (0x2B870030) never came: the first frame is the first END "
                    + "after didFinishLaunching (code 26), unanchored, so a stray END could stand in for it; "
                    + "LaunchProbe's firstFrame marker is taken instead where the app prints it.")
        }
        if unplaced > 0 {
            said.append(
                "\(unplaced) Initial Frame Rendering END(s) after main but neither UIKit's BEGIN (0x2B870030) nor its "
                    + "didFinishLaunching (code 26) to place them: an END can be a stray, so kdebug gives no first "
                    + "frame; LaunchProbe's firstFrame marker measures it.")
        }
        return said
    }
}
