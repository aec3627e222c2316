/// What the statistics, charts and gate keep of one launch: its place in the run, its status and its
/// measured values, without the strings of a `Sample` (names, paths, warnings), so a summary of
/// 100,000 launches stays a few megabytes.
package struct LaunchPoint: Sendable, Hashable {
    /// 1-based iteration number on its device.
    package var iteration: Int
    /// 0 for a cold launch, 1…K for the warm launches after it.
    package var launchIndex: Int
    /// How the launch ended.
    package var status: SampleStatus
    /// Values in `Metric.allCases` order; NaN for "not measured" (a sample never holds a NaN: the
    /// reader refuses non-finite values).
    private var values: [Double]

    /// The point of `sample`.
    package init(_ sample: Sample) {
        iteration = sample.iteration
        launchIndex = sample.launchIndex
        status = sample.status
        values = Metric.allCases.map { sample[$0] ?? .nan }
    }

    /// The value measured for `metric`, `nil` when it was not measured.
    package subscript(metric: Metric) -> Double? {
        let value = values[metric.ordinal]
        return value.isNaN ? nil : value
    }
}

extension Metric {
    /// The position in `Metric.allCases` (a switch: no lookup per value read).
    var ordinal: Int {
        switch self {
        case .totalPremainMs: return 0
        case .dylibLoadingMs: return 1
        case .rebaseBindingMs: return 2
        case .objcSetupMs: return 3
        case .initializerMs: return 4
        case .mainMs: return 5
        case .didFinishLaunchingMs: return 6
        case .firstFrameMs: return 7
        case .wallMs: return 8
        case .processCreationMs: return 9
        case .closureBuildMs: return 10
        case .pageIns: return 11
        case .pageInMs: return 12
        case .zeroFillFaults: return 13
        case .cowFaults: return 14
        case .compressorFaults: return 15
        }
    }
}
