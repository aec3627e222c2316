/// runningboardd's line for a launch it carries out, as the device log shows it:
/// `Executing launch request for application<BUNDLE> (REASON)`. Seen on a phone (Console, iOS 15) with the
/// reason `DAS Prewarm launch` (blbnv/wwdc-pre-warming-samples, README.md); `DAS DYLD3 Closure Generation` is
/// the report and unverified, as is the syslog relay's prefix before the message (Documentation/
/// RealPhoneStatus.md). Only `dasd`'s requests (a reason starting `DAS `) are prelaunches: the launches
/// launchbench asks for go through runningboardd too, under other reasons.
struct RunningboardLaunchRequest: Sendable, Hashable {
    var bundleID: String
    var reason: String

    static let marker = "Executing launch request for application<"

    /// The request a log line reports, wherever the message starts in it; `nil` for any other line.
    init?(line: String) {
        guard let start = line.range(of: Self.marker) else { return nil }
        let rest = line[start.upperBound...]
        guard let close = rest.firstIndex(of: ">") else { return nil }
        bundleID = String(rest[..<close])
        let after = rest[rest.index(after: close)...].drop { $0 == " " }
        guard after.first == "(", let end = after.lastIndex(of: ")") else { return nil }
        reason = String(after[after.index(after: after.startIndex)..<end])
        guard !bundleID.isEmpty else { return nil }
    }

    /// The prelaunch the reason names; `nil` when it is not one of `dasd`'s.
    var prelaunchKind: Prelaunch.Kind? {
        if reason == "DAS Prewarm launch" { return .prewarm }
        if reason.hasPrefix("DAS ") && reason.contains("Closure Generation") { return .closureGeneration }
        return reason.hasPrefix("DAS ") ? .other : nil
    }
}
