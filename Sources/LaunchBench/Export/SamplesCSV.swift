import Foundation

/// `samples.csv`: one row per launch, the columns of ARCHITECTURE.md in that order.
public enum SamplesCSV {
    /// The exact header (the results folder's stable interface).
    public static let header: [String] =
        [
            "run_id", "device_udid", "device_name", "product_type", "os_version", "app_bundle_id", "app_version",
            "iteration", "launch_kind", "status",
        ] + Metric.allCases.map(\.rawValue) + ["started_at"]

    /// The CSV of `samples`, in the order given. Unmeasured metrics are empty cells; values are
    /// written as measured (shortest exact form).
    public static func csv(_ samples: [Sample]) -> CSVWriter {
        var writer = CSVWriter(header: header)
        for sample in samples {
            var fields: [CSVWriter.Field] = [
                .text(sample.runID), .text(sample.deviceUDID), .text(sample.deviceName), .text(sample.productType),
                .text(sample.osVersion), .text(sample.appBundleID), .text(sample.appVersion),
                .integer(sample.iteration), .text(sample.kind.rawValue), .text(sample.status.rawValue),
            ]
            fields += Metric.allCases.map { .number(sample[$0]) }
            fields.append(.text(JSONCoding.timestamp(sample.startedAt)))
            writer.append(fields)
        }
        return writer
    }
}
