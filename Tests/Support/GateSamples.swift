import Foundation
import LaunchBench

/// Builds samples and results folders for gate tests (the core's, and the compare command's).
package enum GateSamples {
    package static let start = Date(timeIntervalSince1970: 1_800_000_000)

    package static func make(
        udid: String = "UDID-A", name: String = "Lab iPhone", productType: String = "iPhone12,1", os: String = "14.8",
        app: String = "com.example.app", kind: LaunchKind = .cold, iteration: Int = 1, status: SampleStatus = .ok,
        metrics: [Metric: Double] = [:], bundleImages: [String] = [], logPath: String? = nil
    ) -> Sample {
        Sample(
            runID: "run", deviceUDID: udid, deviceName: name, productType: productType, osVersion: os, appBundleID: app,
            appVersion: "1.0", iteration: iteration, kind: kind, status: status, metrics: metrics,
            startedAt: start.addingTimeInterval(Double(iteration)), bundleImages: bundleImages, logPath: logPath)
    }

    /// Writes a results folder (run.json, and samples.jsonl unless `writeSamples` is false) in the temporary
    /// folder; the caller removes it.
    package static func resultsFolder(_ samples: [Sample], frameworks: [String] = [], writeSamples: Bool = true)
        throws -> URL
    {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let manifest = RunManifest(
            runID: "run", app: RunManifest.App(bundleID: "com.example.app", name: "Sample.app", frameworks: frameworks))
        try manifest.write(to: url.appendingPathComponent("run.json"))
        if writeSamples {
            let encoder = JSONCoding.encoder()
            let lines = try samples.map { String(decoding: try encoder.encode($0), as: UTF8.self) + "\n" }.joined()
            try lines.write(to: url.appendingPathComponent("samples.jsonl"), atomically: true, encoding: .utf8)
        }
        return url
    }

    /// Cold samples with `total_premain_ms` values.
    package static func cold(
        _ values: [Double], udid: String = "UDID-A", productType: String = "iPhone12,1", os: String = "14.8"
    )
        -> [Sample]
    {
        values.enumerated().map { index, value in
            make(udid: udid, productType: productType, os: os, iteration: index + 1, metrics: [.totalPremainMs: value])
        }
    }
}

/// The emulated app's timing model (DeviceEmulator's `LaunchPlanner`): four pre-main phases, each
/// multiplied by `max(0.2, 1 + noise·N(0,1))` independently, summed, and printed by dyld to 0.01 ms.
/// Simulated here in-process (the LaunchBench test target does not link DeviceEmulator) with the
/// same `SeededRandom` (SplitMix64) and Box–Muller normals, so thousands of runs take milliseconds.
package struct EmulatedTimingModel {
    /// Nominal phases (dylib loading, rebase/binding, ObjC setup, initializers), ms.
    package var phases: [Double]
    package var noise: Double

    package init(phases: [Double] = [180, 60, 40, 120], noise: Double = 0.05) {
        self.phases = phases
        self.noise = noise
    }

    package func slower(by fraction: Double) -> EmulatedTimingModel {
        var copy = self
        copy.phases = phases.map { $0 * (1 + fraction) }
        return copy
    }

    package func totals(count: Int, seed: UInt64) -> [Double] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in
            let total = phases.reduce(0) { $0 + $1 * max(0.2, 1 + noise * random.gaussian()) }
            return (total * 100).rounded() / 100
        }
    }
}
