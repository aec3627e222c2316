import Foundation

/// A device's kernel-trace session for one run, started before its first launch (armed once, not per
/// launch), and the note that says where its pre-main phases come from when that is not the plain story.
/// The device's run hands the session to its `KdebugEnricher`, which uses it launch by launch and stops it.
struct DeviceTrace: Sendable {
    var recorder: KdebugLaunchRecorder? = nil
    /// Process control over the session's connection, when its tracer offers it.
    var processControl: (any ProcessControl)? = nil
    /// The source the device's launches use (`nil`: none gives phases there; `notMeasured`: kdebug would, but
    /// its session is missing).
    var source: PremainSource? = nil
    var note: String? = nil

    /// Why the device has no pre-main source although its plan's is kdebug (the session did not start, or
    /// nothing here reads kdebug); `nil` when it has its source. Under `--premain auto` each launch is then
    /// recorded with source `none` and this reason; an explicit `--premain kdebug` skips the device with it.
    var lost: String? = nil

    /// Starts the session when the device's source is kdebug and a tracer can read it. A session that cannot
    /// start (no pymobiledevice3, kperf owned by Instruments or Xcode, no instruments service, refused or
    /// late) leaves the device without phases, saying why in `lost`. With `crossCheck` (and a tracer), the
    /// session runs beside dyld's statistics to check them; one that cannot start then only costs the check,
    /// said in a note.
    static func start(
        _ source: PremainSource?, crossCheck: Bool = false, on device: DeviceInfo, with tracer: (any KdebugTracing)?,
        reporter: any RunReporter
    ) async -> DeviceTrace {
        let wanted = source == .kdebug || crossCheck
        let label = "\(device.name) (\(device.modelName), \(device.udid))"
        guard wanted, let tracer else {
            guard source == .kdebug else { return DeviceTrace(recorder: nil, source: source, note: nil) }
            // Nothing on this host reads kdebug: the engines found no pymobiledevice3.
            let why =
                "dyld's kdebug events cannot be read: pymobiledevice3, which reads them, was not found. Install it "
                + "with \(EngineChoice.pymobiledevice3Install)."
            return lostTrace(why, label: label, device: device, reporter: reporter)
        }
        do {
            let feed = try await tracer.startTrace(on: device)
            let recorder = KdebugLaunchRecorder(feed: feed)
            return DeviceTrace(
                recorder: recorder,
                processControl: feed.processControl.map { PidReportingProcessControl(base: $0, recorder: recorder) },
                source: source, note: nil)
        } catch {
            guard source == .kdebug else {
                let note = "\(label): dyld's statistics are not checked against kdebug: \(DeviceRun.describe(error))"
                reporter.report(.deviceNote(device, note))
                return DeviceTrace(recorder: nil, source: source, note: note)
            }
            return lostTrace(
                "dyld's kdebug events cannot be read: \(DeviceRun.describe(error))", label: label, device: device,
                reporter: reporter)
        }
    }

    /// A device whose kdebug session is missing: no source, the reason in `lost`, and a note saying what its
    /// launches will lack (the runner skips the device instead when kdebug was asked for explicitly).
    private static func lostTrace(_ why: String, label: String, device: DeviceInfo, reporter: any RunReporter)
        -> DeviceTrace
    {
        DeviceTrace(
            recorder: nil, source: .notMeasured,
            note: "\(label): no pre-main phases (premain_source none): \(why) Its launches are measured without "
                + "them (first frame from LaunchProbe's markers, if the app prints them).",
            lost: why)
    }
}
