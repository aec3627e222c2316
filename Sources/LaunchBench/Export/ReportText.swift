/// Small text helpers shared by the human-readable reports.
enum ReportText {
    /// Device and app texts are user-set: one line, control characters shown (see `UserText.logLine`).
    static func printable(_ text: String) -> String { UserText.logLine(text) }

    /// Milliseconds for people: one decimal, or `–` when there is no value.
    static func ms(_ value: Double?) -> String {
        value.map { DecimalText.exact($0, fractionDigits: 1) } ?? "–"
    }

    /// A percentage for people: one decimal, or `–`.
    static func percent(_ value: Double?) -> String {
        value.map { DecimalText.exact($0, fractionDigits: 1) } ?? "–"
    }

    /// `412.1–430.2`, or `n < 6` when no 95 % interval exists.
    static func interval(_ statistics: MetricStatistics) -> String {
        guard let ci = statistics.ci95 else { return statistics.n == 0 ? "–" : "n < 6" }
        return "\(ms(ci.low))–\(ms(ci.high))"
    }

    /// `iPhone 11 (iPhone12,1) · iOS 14.8 · UDID`, for device headings.
    static func deviceLine(_ device: DeviceIdentity) -> String {
        var parts = [device.modelDescription]
        if !device.osVersion.isEmpty { parts.append("iOS \(device.osVersion)") }
        parts.append(device.udid)
        return parts.joined(separator: " · ")
    }

    /// `cold: 2 of 7 launches failed (1 timeout, 1 crashed)`, or `nil` when none failed.
    static func failureLine(_ kind: KindSummary) -> String? {
        guard kind.failures > 0 else { return nil }
        return "\(kind.kind.rawValue): \(kind.failures) of \(kind.launches) launches failed (\(failureBreakdown(kind)))"
    }

    /// `cold: 1 of 5 launches printed no timing (no-metrics)`, or `nil` when all did.
    static func noMetricsLine(_ kind: KindSummary) -> String? {
        guard kind.withoutMetrics > 0 else { return nil }
        return
            "\(kind.kind.rawValue): \(kind.withoutMetrics) of \(kind.launches) launches printed no timing (no-metrics)"
    }

    /// The failure and no-metrics lines of a device, in kind order.
    static func launchRemarks(_ device: DeviceSummary) -> [(text: String, isFailure: Bool)] {
        device.kinds.compactMap { failureLine($0) }.map { ($0, true) }
            + device.kinds.compactMap { noMetricsLine($0) }.map { ($0, false) }
    }

    /// `1 timeout, 2 crashed`, in status order.
    static func failureBreakdown(_ kind: KindSummary) -> String {
        SampleStatus.allCases.compactMap { status in
            kind.failuresByStatus[status].map { "\($0) \(status.rawValue)" }
        }.joined(separator: ", ")
    }
}
