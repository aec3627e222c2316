/// `images.csv`: one row per device × launch kind × image, from `ImageStatistics`.
///
/// `launches` counts the launches that did not fail; `launches_loaded` those whose library list
/// (`DYLD_PRINT_LIBRARIES`) named the image; `launches_listed` those whose dyld initializer list named it.
/// The initializer columns are over the listing launches only and empty when none listed it: dyld lists
/// an image only above a threshold, so an absent line is "too small to list", never 0 ms. The page-in columns
/// (kdebug's file-backed page faults in the image's range, from exec to the first frame) are medians per
/// launch over the launches that traced page faults, and empty when none did.
enum ImagesCSV {
    /// The columns, in this order (a stable interface). `in_bundle` is `true` / `false`; `launches` counts the
    /// launches of the device and kind that did not fail; the initializer columns are in ms (up to 3 decimals).
    static let header = [
        "device_udid", "launch_kind", "image", "in_bundle", "launches", "launches_loaded", "launches_listed",
        "median_initializer_ms", "p90_initializer_ms", "median_page_ins", "median_page_in_ms",
    ]

    /// One row per device × launch kind × image: devices in report order, cold before warm, images as
    /// `ImageStatistics` orders them (longest initializer median first).
    static func csv(_ summary: RunSummary) -> CSVWriter {
        var writer = CSVWriter(header: header)
        for device in summary.devices {
            for kind in device.kinds {
                for image in kind.images.images {
                    writer.append([
                        .text(device.device.udid), .text(kind.kind.rawValue), .text(image.image),
                        .text(image.inBundle ? "true" : "false"), .integer(kind.images.launches),
                        .integer(image.launchesLoaded), .integer(image.launchesListed),
                        .number(image.medianInitializerMs, fractionDigits: 3),
                        .number(image.p90InitializerMs, fractionDigits: 3),
                        .number(image.medianPageIns, fractionDigits: 1),
                        .number(image.medianPageInMs, fractionDigits: 3),
                    ])
                }
            }
        }
        return writer
    }
}
