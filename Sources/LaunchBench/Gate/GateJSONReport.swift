import Foundation

/// The gate's report as JSON, for scripts. Keys are snake_case like the results folder's files; a
/// value that does not exist is `null`.
///
/// Shape: `{schema_version, tool_version, outcome, exit_code, headline, baseline, current,
/// settings: {threshold_percent, alpha, minimum_launches}, comparisons: [{device_udid, device_name,
/// product_type, os_version, baseline_device_udid, matched_by, launch_kind, metric,
/// baseline: {launches, failures, n, median_ms}, current: {...}, median_change_percent, shift_ms,
/// shift_ci_low_ms, shift_ci_high_ms, shift_percent, shift_ci_low_percent, shift_ci_high_percent,
/// u, p_value, test_method, verdict, reason, launches_needed, smallest_visible_change_percent,
/// baseline_floor_percent, explanation: null | {summary, phases:
/// [{phase, shift_ms, shift_ci_low_ms, shift_ci_high_ms, baseline_n, current_n}], images: [{image,
/// in_bundle, change: appeared|disappeared|changed, baseline_median_initializer_ms,
/// current_median_initializer_ms, delta_ms}]}}], unmatched_baseline_devices,
/// unmatched_current_devices, dylib_guard: null | {passed, violations: [{image, device_udid,
/// device_name, iteration, launch_kind, log_path, message}]}, reference_gaps: [...],
/// sample_sizes: [..], notes: [..], paired: null | {builds: [{role, path, bundle_id, version, digest}],
/// minimum_pairs, max_pairs, entries: [{device_udid, device_name, product_type, os_version, launch_kind,
/// metric, pairs, base_median_ms, new_median_ms, shift_percent, shift_ci_low_percent, shift_ci_high_percent,
/// smallest_visible_change_percent, verdict, reason}], notes: [..]}}` (`paired`: an A/B run's folder).
package enum GateJSONReport {
    /// `schema_version` of the document; raised when a field changes meaning.
    package static let schemaVersion = 1

    /// The report as one JSON object of the shape above.
    /// - Parameters:
    ///   - exitCode: the status the command exits with for `report.outcome` (the command layer maps it).
    package static func render(_ report: GateReport, exitCode: Int32) -> String {
        var root: [String: GateJSONValue] = [
            "schema_version": .number(Double(schemaVersion)),
            "tool_version": .string(LaunchBenchVersion.current),
            "outcome": .string(report.outcome.rawValue),
            "exit_code": .number(Double(exitCode)),
            "headline": .string(report.headline),
            "baseline": .init(report.baselinePath),
            "current": .init(report.currentPath),
            "reference_gaps": .array(report.referenceGaps.map(gap)),
            "sample_sizes": .array(report.sampleSizes.map(GateJSONValue.string)),
            "notes": .array((report.notes + (report.comparison?.notes ?? [])).map(GateJSONValue.string)),
        ]
        if let comparison = report.comparison {
            root["settings"] = .object([
                "threshold_percent": .number(comparison.settings.thresholdPercent),
                "alpha": .number(comparison.settings.alpha),
                "minimum_launches": .number(Double(comparison.settings.minimumLaunches)),
            ])
            root["comparisons"] = .array(comparison.entries.map(entry))
            root["unmatched_baseline_devices"] = .array(comparison.unmatchedBaseline.map(device))
            root["unmatched_current_devices"] = .array(comparison.unmatchedCurrent.map(device))
        } else {
            root["settings"] = .null
            root["comparisons"] = .array([])
            root["unmatched_baseline_devices"] = .array([])
            root["unmatched_current_devices"] = .array([])
        }
        root["paired"] = report.paired.map(PairedText.json) ?? .null
        if let violations = report.dylibViolations {
            root["dylib_guard"] = .object([
                "passed": .bool(violations.isEmpty), "violations": .array(violations.map(violation)),
            ])
        } else {
            root["dylib_guard"] = .null
        }
        let data = (try? JSONCoding.encoder(pretty: true).encode(GateJSONValue.object(root))) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    static func entry(_ e: GateEntry) -> GateJSONValue {
        func side(_ s: GateSide) -> GateJSONValue {
            .object([
                "launches": .number(Double(s.launches)), "failures": .number(Double(s.failures)),
                "n": .number(Double(s.values.count)), "median_ms": .init(s.median),
            ])
        }
        return .object([
            "device_udid": .string(e.currentDevice.udid), "device_name": .string(e.currentDevice.name),
            "product_type": .string(e.currentDevice.productType), "os_version": .string(e.currentDevice.osVersion),
            "baseline_device_udid": .string(e.baselineDevice.udid), "matched_by": .string(e.matchedBy.rawValue),
            "launch_kind": .string(e.kind.rawValue), "metric": .string(e.metric.rawValue),
            "baseline": side(e.baseline), "current": side(e.current),
            "median_change_percent": .init(e.medianChangePercent),
            "shift_ms": .init(e.shift?.shift), "shift_ci_low_ms": .init(e.shift?.low),
            "shift_ci_high_ms": .init(e.shift?.high),
            "shift_percent": .init(e.shiftPercent), "shift_ci_low_percent": .init(e.shiftLowPercent),
            "shift_ci_high_percent": .init(e.shiftHighPercent),
            "u": .init(e.test?.u), "p_value": .init(e.test?.pValue), "test_method": .init(e.test?.method.rawValue),
            "verdict": .string(e.verdict.rawValue), "reason": .string(e.reason),
            "launches_needed": .init(e.launchesNeeded.map(Double.init)),
            "smallest_visible_change_percent": .init(e.smallestVisiblePercent),
            "baseline_floor_percent": .init(e.baselineFloorPercent),
            "explanation": e.explanation.map { explanation($0, sentence: e.explanationSentence) } ?? .null,
        ])
    }

    static func explanation(_ x: GateExplanation, sentence: String?) -> GateJSONValue {
        .object([
            "summary": .init(sentence),
            "phases": .array(
                x.phases.map { p in
                    .object([
                        "phase": .string(p.phase), "shift_ms": .number(p.shift.shift),
                        "shift_ci_low_ms": .init(p.shift.low),
                        "shift_ci_high_ms": .init(p.shift.high), "baseline_n": .number(Double(p.baselineN)),
                        "current_n": .number(Double(p.currentN)),
                    ])
                }),
            "images": .array(
                x.images.map { i in
                    .object([
                        "image": .string(i.image), "in_bundle": .bool(i.inBundle), "change": .string(i.change.rawValue),
                        "baseline_median_initializer_ms": .init(i.baselineMedianMs),
                        "current_median_initializer_ms": .init(i.currentMedianMs), "delta_ms": .init(i.deltaMs),
                    ])
                }),
            "initializer_functions": .array(
                x.functions.map { f in
                    .object([
                        "image": .string(f.image), "function": .string(f.function),
                        "change": .string(f.baselineMedianMs == nil ? "appeared" : "changed"),
                        "baseline_median_ms": .init(f.baselineMedianMs),
                        "current_median_ms": .number(f.currentMedianMs),
                        "delta_ms": .number(f.deltaMs),
                    ])
                }),
        ])
    }

    static func device(_ d: DeviceIdentity) -> GateJSONValue {
        .object([
            "device_udid": .string(d.udid), "device_name": .string(d.name), "product_type": .string(d.productType),
            "os_version": .string(d.osVersion),
        ])
    }

    static func violation(_ v: DylibGuard.Violation) -> GateJSONValue {
        .object([
            "image": .string(v.image), "device_udid": .init(v.deviceUDID), "device_name": .init(v.deviceName),
            "iteration": .init(v.iteration.map(Double.init)), "launch_kind": .init(v.kind?.rawValue),
            "log_path": .init(v.logPath), "message": .string(v.description),
        ])
    }

    static func gap(_ g: ReferenceGap) -> GateJSONValue {
        .object([
            "device_udid": .string(g.device.udid), "device_name": .string(g.device.name),
            "launch_kind": .string(g.kind.rawValue), "metric": .string(g.metric.rawValue),
            "app_median_ms": .number(g.appMedian), "reference_median_ms": .number(g.referenceMedian),
            "gap_ms": .number(g.gapMs), "shift_ms": .number(g.shift.shift), "shift_ci_low_ms": .init(g.shift.low),
            "shift_ci_high_ms": .init(g.shift.high),
        ])
    }
}

/// A JSON value with explicit `null`s (Codable's synthesized encoding leaves nil keys out).
enum GateJSONValue: Encodable, Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([GateJSONValue])
    case object([String: GateJSONValue])

    init(_ value: String?) { self = value.map(GateJSONValue.string) ?? .null }
    init(_ value: Double?) { self = value.flatMap { $0.isFinite ? GateJSONValue.number($0) : nil } ?? .null }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let value):
            var c = encoder.singleValueContainer()
            try c.encode(value)
        case .number(let value):
            var c = encoder.singleValueContainer()
            // Whole numbers as integers (counts, exit codes), the rest as the shortest round-trip form.
            if value == value.rounded(), abs(value) < 1e15 { try c.encode(Int64(value)) } else { try c.encode(value) }
        case .string(let value):
            var c = encoder.singleValueContainer()
            try c.encode(value)
        case .array(let values):
            var c = encoder.unkeyedContainer()
            for value in values { try c.encode(value) }
        case .object(let members):
            var c = encoder.container(keyedBy: Key.self)
            for (key, value) in members { try c.encode(value, forKey: Key(stringValue: key)) }
        }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
