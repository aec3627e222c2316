/// How far the app's launch is above a reference app's (typically an empty project) on the same
/// device, measured interleaved in the same run (`--reference-app`): the seed talk's target is
/// the empty project's time, so the gap is what the app's own work costs.
package struct ReferenceGap: Sendable, Hashable {
    /// The device both apps were measured on.
    package var device: DeviceIdentity
    /// Cold or warm.
    package var kind: LaunchKind
    /// The metric compared.
    package var metric: Metric
    /// The app's median, ms.
    package var appMedian: Double
    /// The reference app's median, ms.
    package var referenceMedian: Double
    /// Hodges–Lehmann shift app − reference, with its interval (ms).
    package var shift: HodgesLehmannShift

    /// `app − reference` medians, in ms.
    package var gapMs: Double { appMedian - referenceMedian }

    /// "412.3 ms above the reference app on Lab iPhone (cold total_premain_ms: app 630.1 ms, reference 217.8 ms)".
    package var sentence: String {
        let gap = GateText.ms(abs(gapMs))
        let direction = gapMs >= 0 ? "above" : "below"
        return "\(gap) ms \(direction) the reference app on \(device.name) (\(kind.rawValue) \(metric.rawValue): "
            + "app \(GateText.ms(appMedian)) ms, reference \(GateText.ms(referenceMedian)) ms)"
    }

    /// The gaps per device × kind for the gate's metric choice.
    /// - Parameters:
    ///   - app: the main app's samples; `reference`: the reference app's samples of the same run.
    package static func gaps(app: GateLaunches, reference: GateLaunches, metrics: [Metric] = []) -> [ReferenceGap] {
        var result: [ReferenceGap] = []
        for device in app.devices {
            for kind in LaunchKind.allCases {
                let a = app.launches(device.udid, kind)?.points ?? []
                let r = reference.launches(device.udid, kind)?.points ?? []
                guard !a.isEmpty, !r.isEmpty else { continue }
                let chosen = GateComparison.metrics(baseline: a, current: r, settings: GateSettings(metrics: metrics))
                for metric in chosen {
                    let appValues = GateComparison.side(a, metric).values
                    let referenceValues = GateComparison.side(r, metric).values
                    guard let am = LaunchesNeeded.median(appValues), let rm = LaunchesNeeded.median(referenceValues),
                        let shift = HodgesLehmannShift(baseline: referenceValues, current: appValues)
                    else { continue }
                    result.append(
                        ReferenceGap(
                            device: device, kind: kind, metric: metric, appMedian: am, referenceMedian: rm, shift: shift
                        ))
                }
            }
        }
        return result
    }
}

extension RunManifest {
    /// The subfolder of a results folder that holds the reference app's launches (`--reference-app`).
    static let referenceFolderName = "reference"
}
