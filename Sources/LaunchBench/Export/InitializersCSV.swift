extension ResultsFolder.FileName {
    /// Static initializer times per device × kind × image × function.
    package static let initializersCSV = "initializers.csv"
}

/// `initializers.csv`: one row per device × launch kind × image × static initializer function, from kdebug's
/// STATIC_INITIALIZER intervals named by `InitializerNames` (`ImageStatistics.functions`). Only the header
/// when no launch named its initializers (dyld's printed statistics time images only).
enum InitializersCSV {
    /// The columns, in this order (a stable interface). `launches` counts the launches that ran the function;
    /// the times are in ms (up to 3 decimals).
    static let header = ["device_udid", "launch_kind", "image", "function", "launches", "median_ms", "p90_ms"]

    /// Devices in report order, cold before warm, functions longest median first.
    static func csv(_ summary: RunSummary) -> CSVWriter {
        var writer = CSVWriter(header: header)
        for device in summary.devices {
            for kind in device.kinds {
                for function in kind.images.functions {
                    writer.append([
                        .text(device.device.udid), .text(kind.kind.rawValue), .text(function.image),
                        .text(function.function), .integer(function.launches),
                        .number(function.medianMs, fractionDigits: 3), .number(function.p90Ms, fractionDigits: 3),
                    ])
                }
            }
        }
        return writer
    }
}
