/// The devices of a stream of launches as the gate and `trend` see them: in the order the launches first name
/// them, with the pre-main sources of each one's measured launches counted. Counted as samples.jsonl is read.
struct LaunchDevices: Sendable {
    /// UDIDs in the order the launches first name them.
    private(set) var order: [String] = []
    private var seen: Set<String> = []
    /// Per UDID, how many measured launches each pre-main source gave.
    private var premainSources: [String: [PremainSource: Int]] = [:]

    /// Counts `sample`, in file order.
    mutating func add(_ sample: Sample) {
        if seen.insert(sample.deviceUDID).inserted { order.append(sample.deviceUDID) }
        if !sample.status.isFailure, let source = sample.premainSource {
            premainSources[sample.deviceUDID, default: [:]][source, default: 0] += 1
        }
    }

    /// The device's majority pre-main source among its measured launches (`GateComparison.premainSource`).
    func premainSource(of udid: String) -> PremainSource? {
        GateComparison.premainSource(counts: premainSources[udid] ?? [:])
    }

    /// `summary`'s devices in the order the launches first name them (the summary lists run.json's first);
    /// a device no launch named is left out.
    func devices(of summary: RunSummary) -> [DeviceSummary] {
        let byUDID = Dictionary(summary.devices.map { ($0.device.udid, $0) }, uniquingKeysWith: { a, _ in a })
        return order.compactMap { byUDID[$0] }
    }
}
