/// The devices of a stream of launches as the gate and `trend` see them: in the order the launches first name
/// them, with the pre-main sources of each one's measured launches counted. Counted as samples.jsonl is read.
struct LaunchDevices: Sendable {
    /// UDIDs in the order the launches first name them.
    private(set) var order: [String] = []
    private var seen: Set<String> = []
    /// Per UDID, how many measured launches each pre-main source gave.
    private var premainSources: [String: [PremainSource: Int]] = [:]
    /// Per UDID, how many measured launches each first-frame source and each launcher gave.
    private var firstFrameSources: [String: [FirstFrameSource: Int]] = [:]
    private var launchers: [String: [LaunchMethod: Int]] = [:]

    /// Counts `sample`, in file order.
    mutating func add(_ sample: Sample) {
        if seen.insert(sample.deviceUDID).inserted { order.append(sample.deviceUDID) }
        guard !sample.status.isFailure else { return }
        if let source = sample.premainSource {
            premainSources[sample.deviceUDID, default: [:]][source, default: 0] += 1
        }
        if let source = MeasurementSources.firstFrame(of: sample) {
            firstFrameSources[sample.deviceUDID, default: [:]][source, default: 0] += 1
        }
        if let launcher = sample.launcher { launchers[sample.deviceUDID, default: [:]][launcher, default: 0] += 1 }
    }

    /// The device's majority pre-main source among its measured launches (`GateComparison.premainSource`).
    func premainSource(of udid: String) -> PremainSource? {
        GateComparison.premainSource(counts: premainSources[udid] ?? [:])
    }

    /// The device's majority sources among its measured launches (ties: the first by name).
    func sources(of udid: String) -> MeasurementSources {
        MeasurementSources(
            premain: premainSource(of: udid), firstFrame: Self.majority(firstFrameSources[udid] ?? [:]),
            launcher: Self.majority(launchers[udid] ?? [:]))
    }

    private static func majority<T: RawRepresentable>(_ counts: [T: Int]) -> T? where T.RawValue == String {
        counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key.rawValue > $1.key.rawValue) }?.key
    }

    /// `summary`'s devices in the order the launches first name them (the summary lists run.json's first);
    /// a device no launch named is left out.
    func devices(of summary: RunSummary) -> [DeviceSummary] {
        let byUDID = Dictionary(summary.devices.map { ($0.device.udid, $0) }, uniquingKeysWith: { a, _ in a })
        return order.compactMap { byUDID[$0] }
    }
}
