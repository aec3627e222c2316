/// `summary.csv`: one row per device × launch kind × metric, the columns of ARCHITECTURE.md.
enum SummaryCSV {
    /// The exact header (the results folder's stable interface).
    static let header: [String] =
        ["device_udid", "device_name", "product_type", "os_version", "launch_kind", "metric", "n", "failures"]
        + Statistic.allCases.map(\.rawValue)

    /// Statistics are rounded to 3 decimals (microseconds, finer than any clock here); empty
    /// cells where a statistic does not exist (n = 0, stddev for n < 2, the CI for n < 6).
    static func csv(_ summary: RunSummary) -> CSVWriter {
        var writer = CSVWriter(header: header)
        for entry in summary.entries {
            var fields: [CSVWriter.Field] = [
                .text(entry.device.udid), .text(entry.device.name), .text(entry.device.productType),
                .text(entry.device.osVersion), .text(entry.kind.rawValue), .text(entry.metric.rawValue),
                .integer(entry.statistics.n), .integer(entry.statistics.failures),
            ]
            fields += Statistic.allCases.map { .number(entry.statistics.value(of: $0), fractionDigits: 3) }
            writer.append(fields)
        }
        return writer
    }
}
