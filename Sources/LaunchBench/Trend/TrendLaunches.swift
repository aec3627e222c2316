/// What `trend` keeps of a folder's launches besides the folder's summary (which already holds each launch's
/// place, status and values): the order devices first appear in, launches per app and pre-main sources per
/// device. Counted as samples.jsonl is read, so a folder of 500,000 launches costs no `Sample` each.
struct TrendLaunches: Sendable {
    /// UDIDs in the order the samples first name them (the summary lists run.json's devices first).
    private(set) var deviceOrder: [String] = []
    /// Launches per bundle id, for the app when run.json does not name it.
    private(set) var appCounts: [String: Int] = [:]
    /// Per UDID, how many measured launches each pre-main source gave.
    private var premainCounts: [String: [PremainSource: Int]] = [:]
    private var seenDevices: Set<String> = []

    /// Counts `sample`, in file order.
    mutating func add(_ sample: Sample) {
        if seenDevices.insert(sample.deviceUDID).inserted { deviceOrder.append(sample.deviceUDID) }
        appCounts[sample.appBundleID, default: 0] += 1
        if !sample.status.isFailure, let source = sample.premainSource {
            premainCounts[sample.deviceUDID, default: [:]][source, default: 0] += 1
        }
    }

    /// Whether any launch was read.
    var isEmpty: Bool { deviceOrder.isEmpty }

    /// `summary`'s devices in the order the samples first name them (as the gate lists them).
    func devices(of summary: RunSummary) -> [DeviceSummary] {
        let byUDID = Dictionary(summary.devices.map { ($0.device.udid, $0) }, uniquingKeysWith: { a, _ in a })
        return deviceOrder.compactMap { byUDID[$0] }
    }

    /// The device's majority pre-main source (`GateComparison.premainSource(counts:)`).
    func premainSource(of udid: String) -> PremainSource? {
        GateComparison.premainSource(counts: premainCounts[udid] ?? [:])
    }
}
