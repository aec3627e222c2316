import Foundation

/// `samples.csv`: one row per launch, the columns of ARCHITECTURE.md in that order.
package enum SamplesCSV {
    /// The exact header (the results folder's stable interface). Columns are only ever added at the end, so a
    /// program reading an older file's columns by position reads a newer one the same way.
    package static let header: [String] =
        [
            "run_id", "device_udid", "device_name", "product_type", "os_version", "app_bundle_id", "app_version",
            "iteration", "launch_kind", "status",
        ] + Metric.allCases.map(\.rawValue) + ["premain_source", "started_at", "launcher"] + disturbanceColumns
        + conditionColumns + firstFrameColumns

    /// Where the first frame came from and the stray Initial Frame Rendering ENDs before it (samples.jsonl's
    /// `first_frame_source` and `stray_frame_ends`): empty when not measured.
    static let firstFrameColumns = ["first_frame_source", "stray_frame_ends"]

    /// The A/B build and what disturbed the launch: samples.jsonl's `build`, `prelaunch`'s kind, source and
    /// reason, `closure_rebuilt` and `set_aside`.
    static let disturbanceColumns = [
        "build", "prelaunch_kind", "prelaunch_source", "prelaunch_reason", "closure_rebuilt", "set_aside",
    ]

    /// The device's conditions before the launch's iteration (samples.jsonl's `conditions`, under the same
    /// names): empty when the device did not report one, never 0.
    static let conditionColumns = ["battery_percent", "charging", "temperature_c", "free_storage_bytes"]

    /// The CSV of `samples`, in the order given. Unmeasured metrics are empty cells; values are
    /// written as measured (shortest exact form).
    package static func csv(_ samples: [Sample]) -> CSVWriter {
        var writer = CSVWriter(header: header)
        for sample in samples { writer.append(fields(sample)) }
        return writer
    }

    /// One launch's row.
    static func fields(_ sample: Sample) -> [CSVWriter.Field] {
        var fields: [CSVWriter.Field] = [
            .text(sample.runID), .text(sample.deviceUDID), .text(sample.deviceName), .text(sample.productType),
            .text(sample.osVersion), .text(sample.appBundleID), .text(sample.appVersion),
            .integer(sample.iteration), .text(sample.kind.rawValue), .text(sample.status.rawValue),
        ]
        fields += Metric.allCases.map { .number(sample[$0]) }
        fields.append(.text(sample.premainSource?.rawValue ?? ""))
        fields.append(.text(JSONCoding.timestamp(sample.startedAt)))
        fields.append(.text(sample.launcher?.rawValue ?? ""))
        fields += [
            .text(sample.build ?? ""), .text(sample.prelaunch?.kind.rawValue ?? ""),
            .text(sample.prelaunch?.source.rawValue ?? ""), .text(sample.prelaunch?.reason ?? ""),
            .text(String(sample.closureRebuilt)), .text(String(sample.setAside)),
        ]
        let conditions = sample.conditions
        fields += [
            .number(conditions?.batteryPercent), .text(conditions?.charging.map { String($0) } ?? ""),
            .number(conditions?.temperatureC), .number(conditions?.freeStorageBytes),
        ]
        fields += [.text(sample.firstFrameSource?.rawValue ?? ""), .number(sample.strayFrameEnds.map(Double.init))]
        return fields
    }

    /// `samples.csv` written row by row as the samples are read, into a hidden file beside the target that
    /// replaces it in one step when finished: memory stays flat however many launches there are, and a
    /// reader never sees half a file. The bytes are those of `csv(_:).data(byteOrderMark: true)`.
    final class FileWriter {
        private let url: URL
        private let temporary: URL
        private let handle: FileHandle
        private var buffer = Data()
        private var finished = false

        /// Starts writing `url` (its BOM and header).
        /// - Throws: `LaunchBenchError.cannotWrite`.
        init(url: URL) throws {
            self.url = url
            temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial")
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
                throw LaunchBenchError.cannotWrite(path: url.path, reason: "cannot create \(temporary.path)")
            }
            do {
                handle = try FileHandle(forWritingTo: temporary)
            } catch {
                throw LaunchBenchError.cannotWrite(path: url.path, reason: error.localizedDescription)
            }
            buffer = CSVWriter(header: header).data(byteOrderMark: true)
        }

        deinit {
            // Abandoned (the read failed): no half file is left behind.
            guard !finished else { return }
            try? handle.close()
            try? FileManager.default.removeItem(at: temporary)
        }

        /// Appends `sample`'s row.
        /// - Throws: `LaunchBenchError.cannotWrite`.
        func append(_ sample: Sample) throws {
            buffer.append(contentsOf: (fields(sample).map(CSVWriter.render).joined(separator: ",") + "\r\n").utf8)
            if buffer.count >= 1 << 20 { try flush() }
        }

        /// Writes what is left and puts the file in place.
        /// - Throws: `LaunchBenchError.cannotWrite`.
        func finish() throws {
            try flush()
            finished = true
            do {
                try handle.close()
            } catch {
                throw LaunchBenchError.cannotWrite(path: url.path, reason: error.localizedDescription)
            }
            // rename(2) replaces the file in one step (Foundation's replaceItemAt moves the old file away first).
            guard rename(temporary.path, url.path) == 0 else {
                throw LaunchBenchError.cannotWrite(path: url.path, reason: String(cString: strerror(errno)))
            }
        }

        private func flush() throws {
            guard !buffer.isEmpty else { return }
            do {
                try handle.write(contentsOf: buffer)
            } catch {
                throw LaunchBenchError.cannotWrite(path: url.path, reason: error.localizedDescription)
            }
            buffer.removeAll(keepingCapacity: true)
        }
    }
}
