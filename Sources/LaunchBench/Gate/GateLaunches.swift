/// What the gate keeps of one app's launches: per device × kind their points and image statistics (a
/// `RunSummary`, devices in the order the launches first name them), and, counted as the launches are read,
/// the little the summary lacks: pre-main sources per device and the bundle images each device loaded.
///
/// `compare` of a 500,000-launch baseline kept every launch's `Sample` (about 1.3 KB each); this keeps
/// about what `report` keeps, and a baseline read from a results folder shares the folder's own summary.
package struct GateLaunches: Sendable {
    /// Per device × kind: the launches' points (place, status, values) and image statistics.
    package private(set) var summary: RunSummary
    /// What the summary lacks, counted as the launches were read.
    package private(set) var counts: Counts

    /// What the gate asks of the launches beyond their summary, counted one launch at a time.
    package struct Counts: Sendable {
        /// The devices in the order the launches first name them, with their pre-main sources.
        private(set) var devices = LaunchDevices()
        /// Each device's bundle images at the first launch that loaded them, in reading order: what the dylib
        /// guard reports (`DylibGuard.check(launches:)`).
        package private(set) var firstLoads: [DylibGuard.Violation] = []
        private var loaded: Set<[String]> = []

        /// Nothing counted yet.
        package init() {}

        /// Counts `sample`, in file order.
        package mutating func add(_ sample: Sample) {
            devices.add(sample)
            for image in sample.bundleImages where loaded.insert([sample.deviceUDID, image]).inserted {
                firstLoads.append(
                    DylibGuard.Violation(
                        image: image, deviceUDID: sample.deviceUDID, deviceName: sample.deviceName,
                        iteration: sample.iteration, kind: sample.kind, logPath: sample.logPath))
            }
        }

        /// The device's majority pre-main source among its measured launches (`GateComparison.premainSource`).
        func premainSource(of udid: String) -> PremainSource? { devices.premainSource(of: udid) }

        /// The device's majority sources among its measured launches (`LaunchDevices.sources`).
        func sources(of udid: String) -> MeasurementSources { devices.sources(of: udid) }
    }

    /// The launches of `samples` (one app's, in the order measured).
    package init(samples: [Sample]) {
        var counts = Counts()
        var accumulator = RunSummary.Accumulator()
        for sample in samples {
            counts.add(sample)
            accumulator.add(sample)
        }
        self.init(summary: accumulator.summary(), counts: counts)
    }

    /// `summary` (e.g. a results folder's, of the same launches as `counts`), its devices put in the order
    /// the launches first name them.
    package init(summary: RunSummary, counts: Counts) {
        var summary = summary
        summary.devices = counts.devices.devices(of: summary)
        self.summary = summary
        self.counts = counts
    }

    /// Every launch, failed ones included.
    package var count: Int { summary.launchCount }

    /// One identity per device, in the order the launches first name it, as the latest launch named it.
    package var devices: [DeviceIdentity] { summary.devices.map(\.device) }

    /// The device's launches of `kind`; `nil` when it made none.
    func launches(_ udid: String, _ kind: LaunchKind) -> KindSummary? {
        summary.devices.first { $0.device.udid == udid }?.kind(kind)
    }
}
