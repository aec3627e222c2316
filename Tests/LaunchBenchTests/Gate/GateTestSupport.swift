import Foundation

@testable import LaunchBench

/// Builds samples for gate tests.
enum GateSamples {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func make(
        udid: String = "UDID-A", name: String = "Lab iPhone", productType: String = "iPhone12,1", os: String = "14.8",
        app: String = "com.example.app", kind: LaunchKind = .cold, iteration: Int = 1, status: SampleStatus = .ok,
        metrics: [Metric: Double] = [:], bundleImages: [String] = [], logPath: String? = nil
    ) -> Sample {
        Sample(
            runID: "run", deviceUDID: udid, deviceName: name, productType: productType, osVersion: os, appBundleID: app,
            appVersion: "1.0", iteration: iteration, kind: kind, status: status, metrics: metrics,
            startedAt: start.addingTimeInterval(Double(iteration)), bundleImages: bundleImages, logPath: logPath)
    }

    /// Cold samples with `total_premain_ms` values.
    static func cold(
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
/// same SplitMix64 generator and Box–Muller normals, so thousands of runs take milliseconds.
struct EmulatedTimingModel {
    /// Nominal phases (dylib loading, rebase/binding, ObjC setup, initializers), ms.
    var phases: [Double] = [180, 60, 40, 120]
    var noise: Double = 0.05

    func slower(by fraction: Double) -> EmulatedTimingModel {
        var copy = self
        copy.phases = phases.map { $0 * (1 + fraction) }
        return copy
    }

    func totals(count: Int, seed: UInt64) -> [Double] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let total = phases.reduce(0) { $0 + $1 * max(0.2, 1 + noise * random.gaussian()) }
            return (total * 100).rounded() / 100
        }
    }
}

struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    mutating func gaussian() -> Double {
        let u1 = max(unit(), 1e-12)
        let u2 = unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}
