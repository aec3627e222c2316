@testable import LaunchBench

/// The gate benchmarks judge plain values, not results folders.
extension GateComparison {
    /// The fixed-sample verdict of two sets of measured values (no failures), as `compare` would give it.
    static func judgeValues(baseline: [Double], current: [Double], settings: GateSettings) -> GateVerdict {
        let device = DeviceIdentity(udid: "", name: "", productType: "", osVersion: "")
        let entry = entry(
            pair: DeviceMatching.Pair(baseline: device, current: device, basis: .udid), kind: .cold,
            metric: .totalPremainMs, baseline: GateSide(launches: baseline.count, failures: 0, values: baseline),
            current: GateSide(launches: current.count, failures: 0, values: current), settings: settings)
        return entry.verdict
    }
}
