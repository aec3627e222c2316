import Foundation

/// A device's kernel-trace session for one run, started before its first launch (armed once, not per
/// launch), and the note that says where its pre-main phases come from when that is not the plain story.
/// The device's run hands the session to its `KdebugEnricher`, which uses it launch by launch and stops it.
struct DeviceTrace: Sendable {
    var recorder: KdebugLaunchRecorder? = nil
    /// Process control over the session's connection, when its tracer offers it.
    var processControl: (any ProcessControl)? = nil
    /// The source the device's launches use (`nil`: none gives phases there).
    var source: PremainSource? = nil
    var note: String? = nil

    /// Starts the session when the device's source is kdebug and a tracer can read it (without one, the
    /// device's advice already says what to install). A session that cannot start (kperf owned by Instruments
    /// or Xcode, no instruments service) leaves the device measured without phases, saying why.
    /// With `crossCheck` (and a tracer), the session runs beside dyld's statistics to check them; one that
    /// cannot start then only costs the check, said in a note.
    static func start(
        _ source: PremainSource?, crossCheck: Bool = false, on device: DeviceInfo, with tracer: (any KdebugTracing)?,
        reporter: any RunReporter
    ) async -> DeviceTrace {
        let wanted = source == .kdebug || crossCheck
        guard wanted, let tracer else {
            return DeviceTrace(recorder: nil, source: source == .kdebug ? nil : source, note: nil)
        }
        let label = "\(device.name) (\(device.modelName), \(device.udid))"
        do {
            let feed = try await tracer.startTrace(on: device)
            let recorder = KdebugLaunchRecorder(feed: feed)
            return DeviceTrace(
                recorder: recorder,
                processControl: feed.processControl.map { PidReportingProcessControl(base: $0, recorder: recorder) },
                source: source, note: nil)
        } catch {
            let note =
                source == .kdebug
                ? "\(label): dyld's kdebug events cannot be read: \(DeviceRun.describe(error)) Pre-main phases come "
                    + "only from dyld's printed statistics, where it prints them; the rest is measured."
                : "\(label): dyld's statistics are not checked against kdebug: \(DeviceRun.describe(error))"
            reporter.report(.deviceNote(device, note))
            return DeviceTrace(recorder: nil, source: source == .kdebug ? nil : source, note: note)
        }
    }
}
