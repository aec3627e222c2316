/// An A/B run's verdict in words, for the gate's text, Markdown and JSON reports alike.
enum PairedText {
    /// `A/B: NEW Sample.app 1.2 (35) against BASE Sample.app 1.2 (34), paired per iteration (ABBA) …`.
    static func headerLine(_ paired: PairedComparison) -> String {
        func build(_ role: String) -> String {
            guard let build = paired.builds.first(where: { $0.role == role }) else { return role.uppercased() }
            return "\(role.uppercased()) \(build.path ?? build.bundleID ?? "") \(build.version ?? "")"
                .trimmingCharacters(in: .whitespaces)
        }
        let threshold = DecimalText.fixed(paired.settings.thresholdPercent, maxFractionDigits: 2)
        return "A/B: \(build(RunManifest.newBuild)) against \(build(RunManifest.baseBuild)), one pair per "
            + "iteration (ABBA order); verdict from the per-pair log ratios (signed-rank interval, looks "
            + "\(paired.design.minimumPairs)…\(paired.design.maxPairs)), threshold ±\(threshold) %."
    }

    /// The table's cells of one entry: device, kind, metric, pairs, base ms, new ms, shift, smallest, verdict.
    static func cells(_ entry: PairedEntry) -> [String] {
        let shift = entry.shift.map { shift in
            [
                GateText.signedPercent(shift.shiftPercent), GateText.interval(shift.lowPercent, shift.highPercent),
            ].filter { !$0.isEmpty }.joined(separator: " ")
        }
        return [
            "\(entry.device.name) (\(entry.device.udid))", entry.kind.rawValue, entry.metric.rawValue,
            String(entry.pairs), GateText.ms(entry.baseMedian), GateText.ms(entry.newMedian), shift ?? "–",
            entry.smallestVisiblePercent.map { "±" + DecimalText.fixed($0, maxFractionDigits: 1) + " %" } ?? "–",
            GateText.verdict(entry.verdict),
        ]
    }

    static let headers = [
        "device", "kind", "metric", "pairs", "base ms", "new ms", "shift [interval]", "smallest visible", "verdict",
    ]

    /// One sentence per entry: its verdict, the pairs and the smallest change they could show.
    static func line(_ entry: PairedEntry) -> String {
        "\(GateText.verdict(entry.verdict)): \(entry.device.name) (\(entry.device.udid)) \(entry.kind.rawValue) "
            + "\(entry.metric.rawValue): \(entry.reason)"
    }

    /// The entry as a JSON object.
    static func json(_ entry: PairedEntry) -> GateJSONValue {
        .object([
            "device_udid": .string(entry.device.udid), "device_name": .string(entry.device.name),
            "product_type": .string(entry.device.productType), "os_version": .string(entry.device.osVersion),
            "launch_kind": .string(entry.kind.rawValue), "metric": .string(entry.metric.rawValue),
            "pairs": .number(Double(entry.pairs)), "base_median_ms": .init(entry.baseMedian),
            "new_median_ms": .init(entry.newMedian), "shift_percent": .init(entry.shift?.shiftPercent),
            "shift_ci_low_percent": .init(entry.shift?.lowPercent),
            "shift_ci_high_percent": .init(entry.shift?.highPercent),
            "smallest_visible_change_percent": .init(entry.smallestVisiblePercent),
            "verdict": .string(entry.verdict.rawValue), "reason": .string(entry.reason),
        ])
    }

    /// The comparison as a JSON object: the builds, the design and the entries.
    static func json(_ paired: PairedComparison) -> GateJSONValue {
        .object([
            "builds": .array(
                paired.builds.map { build in
                    .object([
                        "role": .init(build.role), "path": .init(build.path), "bundle_id": .init(build.bundleID),
                        "version": .init(build.version), "digest": .init(build.digest),
                    ])
                }),
            "minimum_pairs": .number(Double(paired.design.minimumPairs)),
            "max_pairs": .number(Double(paired.design.maxPairs)),
            "entries": .array(paired.entries.map(json)), "notes": .array(paired.notes.map(GateJSONValue.string)),
        ])
    }
}
