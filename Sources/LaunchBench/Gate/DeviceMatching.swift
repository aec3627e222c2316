/// Pairs the devices of a baseline run with those of the current run.
///
/// A device is matched by UDID when the same phone measured both runs; the devices left over are
/// then matched by model (`ProductType`) and iOS version, in the order they were measured, because
/// CI labs swap a broken phone for another of the same kind. A device left over after that is paired
/// with one of the same model on another iOS version, so that the gate says `not comparable: iOS 26.1 →
/// 27.0` (naming both versions, as for a phone updated under the same UDID) rather than only that the
/// baseline's phone is missing; launch times are never judged across the change without `--compare-anyway`.
/// Devices left over after that are reported as unmatched, never compared across models.
package enum DeviceMatching {
    /// How a pair was made.
    package enum Basis: String, Sendable, Hashable, Codable {
        case udid
        /// Same `ProductType` and iOS version, different UDID.
        case modelAndOS = "model-and-os"
        /// Same `ProductType`, another iOS version, different UDID: not comparable (``GateComparison/changes(_:)``).
        case model
    }

    /// A baseline device and the current device compared with it.
    package struct Pair: Sendable, Hashable {
        /// The device in the baseline run.
        package var baseline: DeviceIdentity
        /// The device in the current run.
        package var current: DeviceIdentity
        /// How they were matched.
        package var basis: Basis
    }

    /// The pairs and what was left over.
    package struct Result: Sendable, Hashable {
        /// In the current run's device order.
        package var pairs: [Pair]
        /// Baseline devices without a partner.
        package var unmatchedBaseline: [DeviceIdentity]
        /// Current devices without a partner.
        package var unmatchedCurrent: [DeviceIdentity]
    }

    /// - Parameters:
    ///   - baseline, current: each run's devices in measuring order, one entry per UDID.
    package static func match(baseline: [DeviceIdentity], current: [DeviceIdentity]) -> Result {
        var remaining = baseline
        var chosen: [Int: Pair] = [:]
        for (index, device) in current.enumerated() {
            if let found = remaining.firstIndex(where: { $0.udid == device.udid }) {
                chosen[index] = Pair(baseline: remaining.remove(at: found), current: device, basis: .udid)
            }
        }
        for (index, device) in current.enumerated() where chosen[index] == nil {
            if let found = remaining.firstIndex(where: {
                $0.productType == device.productType && $0.osVersion == device.osVersion
            }) {
                chosen[index] = Pair(baseline: remaining.remove(at: found), current: device, basis: .modelAndOS)
            }
        }
        for (index, device) in current.enumerated() where chosen[index] == nil {
            if let found = remaining.firstIndex(where: { $0.productType == device.productType }) {
                chosen[index] = Pair(baseline: remaining.remove(at: found), current: device, basis: .model)
            }
        }
        let pairs = current.indices.compactMap { chosen[$0] }
        let unmatchedCurrent = current.indices.filter { chosen[$0] == nil }.map { current[$0] }
        return Result(pairs: pairs, unmatchedBaseline: remaining, unmatchedCurrent: unmatchedCurrent)
    }
}
