import Foundation
import LaunchBench

/// How a real phone's launch times wander beyond the per-phase `noise`: the `variation` of an app profile
/// and the `launchbench emulator --launch-noise/--run-offset/--drift/--outliers` options.
///
/// Each launch's nominal figures (every phase, initializer and marker) are multiplied by one factor
/// `F = exp(o + d(n) + ε) · (1 + X)` before the per-phase noise is drawn:
/// - `ε ~ N(0, launch²)`: launch-to-launch noise shared by all phases of the launch (scheduling, caches);
/// - `o ~ N(0, runOffset²)`: the phone's state, drawn once per device start (the lab's start or a restart)
///   from the lab's seed, so a baseline and a later run on another start see different offsets while two
///   builds launched in one run share it;
/// - `d(n)`: slow drift within a start (heat), smooth from launch to launch, wandering over about
///   `driftLaunches` of the device's launches since it started, with standard deviation `drift`;
/// - `X`: background work, with chance `outlierProbability` per launch an extra `outlierSize · Exp(1)`.
///
/// `o` and `d(n)` belong to the device (the lab's seed, the UDID, the start), `ε` and `X` to the launch
/// (the app's seed, bundle id and launch number), so interleaved builds feel the same phone. Every field
/// is optional: absent is 0 (none), `driftLaunches` 20 and `outlierSize` 0.3. Where the figures come
/// from is in Documentation/NoiseModel.md.
package struct PhoneVariation: Codable, Sendable, Hashable {
    /// Standard deviation of the launch's log factor `ε` (0.05 ≈ 5 % per launch).
    package var launch: Double?
    /// Standard deviation of the per-start log offset `o`.
    package var runOffset: Double?
    /// Stationary standard deviation of the drift `d(n)`.
    package var drift: Double?
    /// The drift's correlation length in launches of the device.
    package var driftLaunches: Double?
    /// Chance per launch of background work.
    package var outlierProbability: Double?
    /// Mean extra fraction an outlier adds.
    package var outlierSize: Double?

    package init(
        launch: Double? = nil, runOffset: Double? = nil, drift: Double? = nil, driftLaunches: Double? = nil,
        outlierProbability: Double? = nil, outlierSize: Double? = nil
    ) {
        self.launch = launch
        self.runOffset = runOffset
        self.drift = drift
        self.driftLaunches = driftLaunches
        self.outlierProbability = outlierProbability
        self.outlierSize = outlierSize
    }

    /// This variation's fields where set, else `fallback`'s (an app profile over the emulator's options).
    package func over(_ fallback: PhoneVariation?) -> PhoneVariation {
        guard let fallback else { return self }
        return PhoneVariation(
            launch: launch ?? fallback.launch, runOffset: runOffset ?? fallback.runOffset,
            drift: drift ?? fallback.drift, driftLaunches: driftLaunches ?? fallback.driftLaunches,
            outlierProbability: outlierProbability ?? fallback.outlierProbability,
            outlierSize: outlierSize ?? fallback.outlierSize)
    }

    /// Whether every part is off: the factor is exactly 1.
    package var isNone: Bool {
        (launch ?? 0) == 0 && (runOffset ?? 0) == 0 && (drift ?? 0) == 0 && (outlierProbability ?? 0) == 0
    }

    /// The device's log offset plus drift, `o + d(n)`, for its launches `1…count` since start `start`: one
    /// pass, so a simulation of many launches costs what one emulated launch does.
    ///
    /// The drift is heat: the phone's load wanders (an AR(1) with correlation `φ = exp(−1/driftLaunches)` per
    /// launch) and its temperature follows the load with the same lag (the load filtered once more), so the
    /// drift is smooth from one launch to the next and wanders over about `driftLaunches` launches. It is
    /// scaled to the stationary standard deviation `drift` (the filtered AR(1) with a double root `φ` has
    /// variance `(1 − φ)²·σ²(1 − φ²)·(1 + φ²)/(1 − φ²)³` for a load of variance σ²) and starts in its stationary
    /// state (a burn-in of `4·driftLaunches` launches).
    package func deviceLogs(seed: UInt64, udid: String, start: Int, count: Int) -> [Double] {
        guard count > 0 else { return [] }
        var offsetRandom = SeededRandom(seed: seed, parts: [udid, "run-offset", String(start)])
        let offset = (runOffset ?? 0) * offsetRandom.gaussian()
        let sd = drift ?? 0
        guard sd > 0 else { return Array(repeating: offset, count: count) }
        let length = max(driftLaunches ?? 20, 1)
        let phi = exp(-1 / length)
        let innovation = (1 - phi * phi).squareRoot()
        let filteredVariance = (1 - phi) * (1 - phi) * (1 - phi * phi) * (1 + phi * phi) / pow(1 - phi * phi, 3)
        let scale = sd / filteredVariance.squareRoot()
        var random = SeededRandom(seed: seed, parts: [udid, "drift", String(start)])
        var load = random.gaussian()
        var heat = load
        for _ in 0..<Int(min(4 * length, 100_000)) {
            load = phi * load + innovation * random.gaussian()
            heat = phi * heat + (1 - phi) * load
        }
        var logs: [Double] = []
        logs.reserveCapacity(count)
        for _ in 0..<count {
            load = phi * load + innovation * random.gaussian()
            heat = phi * heat + (1 - phi) * load
            logs.append(offset + scale * heat)
        }
        return logs
    }

    /// The launch's own log factor, `ε + log(1 + X)`, from its two sequences (noise and background work).
    package func launchLog(noise: SeededRandom, background: SeededRandom) -> Double {
        var noise = noise
        var background = background
        var log = (launch ?? 0) * noise.gaussian()
        if let chance = outlierProbability, chance > 0, background.unit() < chance {
            let exponential = -_logarithm(max(1 - background.unit(), 1e-12))
            log += _logarithm(1 + (outlierSize ?? 0.3) * exponential)
        }
        return log
    }

    /// Rejects values that are not a variation, naming the field (`prefix` is where it sits in the file).
    package func validate(prefix: String) throws {
        let spreads = [("launch", launch), ("runOffset", runOffset), ("drift", drift), ("outlierSize", outlierSize)]
        for case (let name, let value?) in spreads where !(value.isFinite && (0...2).contains(value)) {
            throw AppProfileError("\(prefix).\(name) \(value) must be from 0 to 2 (a standard deviation of the log)")
        }
        if let chance = outlierProbability, !(chance.isFinite && (0...1).contains(chance)) {
            throw AppProfileError("\(prefix).outlierProbability \(chance) must be from 0 to 1")
        }
        if let length = driftLaunches, !(length.isFinite && length >= 1 && length <= 1_000_000) {
            throw AppProfileError("\(prefix).driftLaunches \(length) must be from 1 to 1000000 launches")
        }
    }
}

/// Where a launch stands on its device: the start it belongs to and its number among that start's launches
/// (every app's), which is what the run offset and the drift depend on.
package struct DeviceMoment: Sendable, Hashable {
    /// 1 for the lab's start, +1 per restart.
    package var start: Int
    /// 1-based, every app's launches since that start.
    package var launch: Int
    /// The emulator's variation for this device (an app profile's fields win).
    package var variation: PhoneVariation?
    /// What the phone's temperature does to this launch (`EmulatedConditions.launchFactor`; 1 when cool).
    package var thermalFactor: Double = 1
    /// The emulator's switch for UIKit's frame events on this phone (an app profile's `uikitFrames` wins).
    package var uikitFrames: UIKitFrameEvents?

    package init(start: Int, launch: Int, variation: PhoneVariation?) {
        self.start = start
        self.launch = launch
        self.variation = variation
    }
}

extension LaunchTimings {
    /// Every figure times `factor`: phases, initializers and markers (the markers fill in first).
    func scaled(by factor: Double) -> LaunchTimings {
        guard factor != 1 else { return self }
        let filled = withDerivedMarkers()
        return LaunchTimings(
            dylibLoadingMs: dylibLoadingMs * factor, rebaseBindingMs: rebaseBindingMs * factor,
            objcSetupMs: objcSetupMs * factor, initializerMs: initializerMs * factor,
            slowestInitializers: slowestInitializers?.map { InitializerFigure(image: $0.image, ms: $0.ms * factor) },
            mainMs: filled.mainMs.map { $0 * factor },
            didFinishLaunchingMs: filled.didFinishLaunchingMs.map { $0 * factor },
            firstFrameMs: filled.firstFrameMs.map { $0 * factor })
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

private func _logarithm(_ x: Double) -> Double { log(x) }
