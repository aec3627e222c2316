import Foundation
import LaunchBench

extension DoctorChecker {
    static let captureFix =
        "Run `launchbench doctor --capture DIR` and attach DIR to a bug report: it holds the raw kdebug."

    /// iOS 17+: the instruments service over the tunnel, which the kdebug session (and process control) use.
    static func dtservicehub(_ seen: KdebugSeen?, wantsKdebug: Bool) -> DoctorRow {
        guard let seen else {
            return .unknown(.dtservicehub, "not reached: no kdebug engine (pymobiledevice3)", needed: wantsKdebug)
        }
        switch seen.startError as? KdebugTapError {
        case .connect(_, let message)?:
            return .fails(
                .dtservicehub, message,
                fix: "The message names the cause; a phone without the Developer Disk Image lists no instruments "
                    + "service (`pymobiledevice3 mounter auto-mount --udid UDID`).", needed: wantsKdebug)
        case nil where seen.startError != nil:
            return .unknown(.dtservicehub, DeviceDoctor.describe(seen.startError!), needed: wantsKdebug)
        case nil, .kperfLocked?:
            return .holds(.dtservicehub, "the kdebug session's DTX connection opened", needed: wantsKdebug)
        default:
            return .unknown(.dtservicehub, DeviceDoctor.describe(seen.startError!), needed: wantsKdebug)
        }
    }

    /// kperf, the first message after `start`, and `machTimeInfo`, from the session's start.
    static func session(_ seen: KdebugSeen?, wantsKdebug: Bool, helper: HelperLogLines = HelperLogLines())
        -> [DoctorRow]
    {
        guard let seen else {
            let fix = "Install pymobiledevice3: " + EngineChoice.pymobiledevice3Install + "."
            return [
                .unknown(.kperf, "no kdebug engine", needed: wantsKdebug),
                .fails(
                    .firstMessage, "no kdebug engine: pymobiledevice3 is not installed", fix: fix, needed: wantsKdebug),
                .unknown(.machTimeInfo, "no kdebug engine", needed: wantsKdebug),
            ]
        }
        if let error = seen.startError {
            let text = DeviceDoctor.describe(error)
            if case .kperfLocked(_, let notice)? = error as? KdebugTapError {
                let fix = "Stop the Instruments or Xcode recording on the phone, then run doctor again."
                return [
                    .fails(.kperf, text, fix: fix, needed: wantsKdebug),
                    .fails(
                        .firstMessage, "a notice with a non-zero status: \"\(notice)\"", fix: fix, needed: wantsKdebug),
                    .holds(.machTimeInfo, "read before the session started", needed: wantsKdebug),
                ]
            }
            let reached = (error as? KdebugTapError).map { if case .connect = $0 { false } else { true } } ?? true
            return [
                .unknown(.kperf, "the session did not start", needed: wantsKdebug),
                reached
                    ? .fails(.firstMessage, text, fix: text, needed: wantsKdebug)
                    : .unknown(.firstMessage, "the session did not start", needed: wantsKdebug),
                .unknown(.machTimeInfo, "the session did not start", needed: wantsKdebug),
            ]
        }
        var rows: [DoctorRow] = [
            .holds(.kperf, "the session started: no other recording held kperf", needed: wantsKdebug)
        ]
        switch seen.firstMessageWasHeader {
        case true?:
            let header = seen.header
            // The helper drops a notice that opens the session (pymobiledevice3 reads it as the acknowledgement);
            // its log says whether one came first.
            var notice = ""
            if let line = helper.firstMessage, let range = line.range(of: "notice ") {
                notice = "a notice \(line[range.upperBound...]), then "
            }
            rows.append(
                .holds(
                    .firstMessage,
                    notice + "a RAW_VERSION2 header (\(header?.threads.count ?? 0) threads, tick frequency "
                        + "\(header?.tickFrequency ?? 0) Hz)", needed: wantsKdebug))
        case false?:
            rows.append(
                .fails(
                    .firstMessage, "the first data message is not a RAW_VERSION2 header", fix: captureFix,
                    needed: wantsKdebug))
        case nil:
            rows.append(.fails(.firstMessage, "no data message after start", fix: captureFix, needed: wantsKdebug))
        }
        if let timebase = seen.timebase {
            var detail =
                "[mach_absolute_time, numer, denom]: \(timebase.numer)/\(timebase.denom) ("
                + DecimalText.fixed(timebase.nanoseconds(1), maxFractionDigits: 3) + " ns a tick)"
            if let reply = helper.machTimeInfo { detail += "; the whole reply: \(reply)" }
            if let frequency = seen.header?.tickFrequency, frequency > 0,
                let fromHeader = MachTimebase(tickFrequency: frequency), fromHeader != timebase
            {
                detail +=
                    "; the header's tick frequency gives \(fromHeader.numer)/\(fromHeader.denom) (times use machTimeInfo's)"
            }
            rows.append(.holds(.machTimeInfo, detail, needed: wantsKdebug))
        } else {
            rows.append(.unknown(.machTimeInfo, "the session did not start", needed: wantsKdebug))
        }
        return rows
    }

    /// dyld's events of the launch, UIKit's first frame, dyld's closure build, and how the events arrived.
    static func launchEvents(
        _ file: KdebugLaunchFile?, seen: KdebugSeen?, sample: Sample?, wantsKdebug: Bool
    ) -> [DoctorRow] {
        guard let seen, seen.startError == nil else {
            let why = "the session did not start"
            return [
                .unknown(.dyldEvents, why, needed: wantsKdebug), .unknown(.firstFrame, why, needed: false),
                .unknown(.buildClosure, why, needed: false), .unknown(.delivery, why, needed: wantsKdebug),
            ]
        }
        var rows: [DoctorRow] = []
        let dropped = sample?.warnings.first { $0.contains("dropped events") }
        if let launch = file?.launch, let premain = launch.phases.totalPremainMs {
            rows.append(
                .holds(
                    .dyldEvents,
                    "exec and dyld's launch of \(launch.executable ?? "the app") (pid \(launch.pid.map(String.init) ?? "?")): "
                        + "pre-main \(DecimalText.fixed(premain, maxFractionDigits: 1)) ms, \(file?.records ?? 0) records",
                    needed: wantsKdebug))
            rows.append(firstFrame(launch.phases))
            rows.append(
                launch.phases.closureBuildMs.map {
                    .holds(
                        .buildClosure,
                        "dyld built the launch closure: \(DecimalText.fixed($0, maxFractionDigits: 1)) ms",
                        needed: false)
                }
                    ?? .unknown(
                        .buildClosure,
                        "no BUILD_CLOSURE on the first launch after the install: the closure was built before (by "
                            + "installd or a prelaunch)", needed: false))
        } else {
            let what =
                file.map { $0.error ?? "\($0.records) records of the launch, but no dyld launch of the app among them" }
                ?? "no records of the launch reached the session"
            let warnings = sample?.warnings.filter { $0.hasPrefix("kdebug") } ?? []
            rows.append(
                .fails(
                    .dyldEvents, ([what] + warnings).joined(separator: "; "), fix: captureFix, needed: wantsKdebug))
            rows.append(.unknown(.firstFrame, "no dyld launch to place it after", needed: false))
            rows.append(.unknown(.buildClosure, "no dyld launch", needed: false))
        }
        let volume =
            "\(seen.chunks) messages, \(seen.bytes / 1024) KiB, \(seen.records) records in the session"
            + (seen.worstLagMs.map {
                "; the slowest message arrived \(DecimalText.fixed($0, maxFractionDigits: 0)) ms behind the quickest"
            } ?? "")
        if let dropped {
            rows.append(
                .fails(
                    .delivery, "\(volume); \(dropped)",
                    fix: "The phone's trace buffer overflowed: close other apps, keep the phone idle, and run again.",
                    needed: wantsKdebug))
        } else if seen.records == 0 {
            rows.append(.fails(.delivery, "no events arrived (\(volume))", fix: captureFix, needed: wantsKdebug))
        } else {
            rows.append(.holds(.delivery, volume, needed: wantsKdebug))
        }
        return rows
    }
}
