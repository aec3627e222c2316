/// What `trend` keeps of a folder's launches besides the folder's summary (which already holds each launch's
/// place, status and values): the order devices first appear in, launches per app and pre-main sources per
/// device. Counted as samples.jsonl is read, so a folder of 500,000 launches costs no `Sample` each.
struct TrendLaunches: Sendable {
    /// The devices in the order the launches first name them, with their pre-main sources.
    private(set) var devices = LaunchDevices()
    /// Launches per bundle id, for the app when run.json does not name it.
    private(set) var appCounts: [String: Int] = [:]

    /// Counts `sample`, in file order.
    mutating func add(_ sample: Sample) {
        devices.add(sample)
        appCounts[sample.appBundleID, default: 0] += 1
    }

    /// Whether any launch was read.
    var isEmpty: Bool { devices.order.isEmpty }
}
