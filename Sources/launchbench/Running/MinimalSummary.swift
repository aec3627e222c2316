import Foundation
import LaunchBench

/// Medians per device and launch kind, until the statistics module's terminal summary is on main.
enum MinimalSummary {
    static func render(_ result: RunResult) -> String {
        var table = TextTable(headers: ["DEVICE", "IOS", "KIND", "OK", "FAILED", "PRE-MAIN MEDIAN", "FIRST FRAME MEDIAN"])
        for device in result.manifest.devices {
            for kind in LaunchKind.allCases {
                let samples = result.samples.filter { $0.deviceUDID == device.udid && $0.kind == kind }
                guard !samples.isEmpty else { continue }
                let ok = samples.filter { $0.status == .ok }
                table.append([
                    device.modelName, device.osVersion, kind.rawValue, String(ok.count),
                    String(samples.filter(\.status.isFailure).count), median(ok.compactMap { $0[.totalPremainMs] }),
                    median(ok.compactMap { $0[.firstFrameMs] }),
                ])
            }
        }
        return table.render() + "\n"
    }

    private static func median(_ values: [Double]) -> String {
        guard !values.isEmpty else { return "–" }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        let value = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        return String(format: "%.1f ms", value)
    }
}
