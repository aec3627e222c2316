/// One of UIKit's launch phases as its lifecycle kdebug codes mark it (the Instruments App Life Cycle lane).
package struct UIKitSpan: Sendable, Hashable {
    /// The phase's name, as Instruments shows it (`didFinishLaunchingWithOptions()`).
    package var name: String
    /// Its start (ticks).
    package var startTimestamp: UInt64
    /// Its end (ticks).
    package var endTimestamp: UInt64
    /// The thread that emitted the codes (the app's main thread).
    package var threadID: UInt64
}

/// UIKit's launch phases from its lifecycle kdebug codes, without LaunchProbe.
///
/// UIKit is closed source: the codes are py-ios-device's table (`ios_device/util/lifecycle.py`, commit
/// 2306101, `decode_app_lifecycle`; unchanged in 4ee38c6), the public reference for what Instruments' App Life
/// Cycle lane reads. Class `DBG_ARIADNE` (43), subclass 0x87, by code whatever the function bits: 90 with arg1
/// 0x32 starts UIKit initialization; 21 starts scene creation; 23/24 open and close
/// `willFinishLaunchingWithOptions`, 25/26 `didFinishLaunchingWithOptions`, 300/301 `scene(_:willConnectTo:)`,
/// 312/313 `sceneWillEnterForeground`, each returning to scene creation; 12 starts Initial Frame Rendering
/// (0x2B870030), which the first frame's 0x31CA0006 (class `DBG_IMG` 49, subclass 0xCA, code 1, END) ends.
/// Each code ends the phase open and opens the next, as py-ios-device does, on the thread that ran main only.
/// The phases stop at the first frame `UIKitFirstFrame` chose: an END before the BEGIN (a stray, py-ios-device
/// PR #127) closes no phase. Which of these iOS 17–26 still emit is unverified
/// (Documentation/RealPhoneStatus.md).
package enum UIKitLifecycle {
    /// The class and subclass of UIKit's lifecycle codes (`0x2B87____`); a session traces them with
    /// `0x2B870000`.
    package static let filter: UInt32 = 0x2B87_0000

    /// The phase a lifecycle code opens (`nil`: not one of the table's codes).
    static func opens(_ record: KdebugRecord) -> String? {
        let id = record.debugID
        guard id.eventClass == 0x2B, id.subclass == 0x87 else { return nil }
        switch id.code {
        case 90: return record.arg1 == 0x32 ? "UIKit initialization" : nil
        case 21, 24, 26, 301, 313: return "UIKit scene creation"
        case 23: return "willFinishLaunchingWithOptions()"
        case 25: return "didFinishLaunchingWithOptions()"
        case 300: return "scene(_:willConnectTo:)"
        case 312: return "sceneWillEnterForeground()"
        case 12: return "Initial frame rendering"
        default: return nil
        }
    }

    /// The code that ends `didFinishLaunchingWithOptions` (26).
    package static let didFinishLaunchingEnd: UInt16 = 26

    /// The phases on `thread` (the one that ran main) from `after` to the first frame.
    /// - Parameters:
    ///   - records: the process's records, sorted by timestamp.
    ///   - thread: the thread that ran main.
    ///   - after: main (ticks): UIKit's codes come after it.
    ///   - frame: the first frame's END (ticks), which closes the phase open then; nil: none closes it.
    /// - Returns: the closed phases by start, and the end of `didFinishLaunchingWithOptions` (ticks) if seen.
    static func spans(_ records: [KdebugRecord], thread: UInt64, after: UInt64, until frame: UInt64?)
        -> (spans: [UIKitSpan], didFinishLaunching: UInt64?)
    {
        var open: (name: String, start: UInt64)?
        var spans: [UIKitSpan] = []
        var didFinish: UInt64?
        func close(at timestamp: UInt64) {
            guard let current = open else { return }
            spans.append(
                UIKitSpan(name: current.name, startTimestamp: current.start, endTimestamp: timestamp, threadID: thread))
            open = nil
        }
        for record in records where record.threadID == thread && record.timestamp >= after {
            if UIKitFirstFrame.isEnd(record.debugID) {
                // Only the first frame ends a phase (and the launch); any other END is a stray.
                guard let frame, record.timestamp == frame else { continue }
                close(at: frame)
                break
            }
            guard let next = opens(record) else { continue }
            let id = record.debugID
            if didFinish == nil, id.code == didFinishLaunchingEnd { didFinish = record.timestamp }
            close(at: record.timestamp)
            open = (next, record.timestamp)
        }
        return (spans.sorted { $0.startTimestamp < $1.startTimestamp }, didFinish)
    }
}
