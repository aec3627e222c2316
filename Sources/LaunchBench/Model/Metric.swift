/// A measured quantity of one launch, named as its column in `samples.csv`.
package enum Metric: String, Sendable, Hashable, Codable, CaseIterable {
    case totalPremainMs = "total_premain_ms"
    case dylibLoadingMs = "dylib_loading_ms"
    case rebaseBindingMs = "rebase_binding_ms"
    case objcSetupMs = "objc_setup_ms"
    case initializerMs = "initializer_ms"
    /// App marker `main`: ms from process start (so it includes pre-main).
    case mainMs = "main_ms"
    /// App marker `didFinishLaunching`, ms from process start.
    case didFinishLaunchingMs = "did_finish_launching_ms"
    /// App marker `firstFrame`, ms from process start: the whole launch as the user sees it.
    case firstFrameMs = "first_frame_ms"
    /// Harness wall time from `continue` to the launch's end signal (Documentation/Design.md says what it spans).
    case wallMs = "wall_ms"
    /// kdebug: exec → dyld's first instruction (`BOOTSTRAP_START`): the kernel's share of the launch.
    case processCreationMs = "process_creation_ms"
    /// kdebug: dyld building the app's launch closure (`BUILD_CLOSURE`), on the first launch after an install.
    case closureBuildMs = "closure_build_ms"
    /// kdebug: the app's file-backed page-ins (`DBG_PAGEINV_FAULT`) from exec to the first frame; a count.
    case pageIns = "page_ins"
    /// kdebug: the summed duration of those page-ins, ms.
    case pageInMs = "page_in_ms"
    /// kdebug: zero-fill faults (`DBG_ZERO_FILL_FAULT`) from exec to the first frame; a count.
    case zeroFillFaults = "zero_fill_faults"
    /// kdebug: copy-on-write faults (`DBG_COW_FAULT`, `DBG_COR_FAULT`) from exec to the first frame; a count.
    case cowFaults = "cow_faults"
    /// kdebug: compressor faults (`DBG_COMPRESSOR_FAULT`, `…_SWAPIN_FAULT`) from exec to the first frame; a count.
    case compressorFaults = "compressor_faults"

    /// The five pre-main metrics dyld prints.
    package static let preMain: [Metric] = [
        .totalPremainMs, .dylibLoadingMs, .rebaseBindingMs, .objcSetupMs, .initializerMs,
    ]
    /// The after-main metrics the app's markers give.
    package static let markers: [Metric] = [.mainMs, .didFinishLaunchingMs, .firstFrameMs]

    /// The page-fault metrics kdebug's `MACH_vmfault` events give.
    package static let faults: [Metric] = [.pageIns, .pageInMs, .zeroFillFaults, .cowFaults, .compressorFaults]

    /// Whether the metric counts events rather than timing them (reports print it without `ms`).
    package var isCount: Bool { [.pageIns, .zeroFillFaults, .cowFaults, .compressorFaults].contains(self) }

    /// The app marker name that feeds this metric, if any.
    var markerName: String? {
        switch self {
        case .mainMs: return "main"
        case .didFinishLaunchingMs: return "didFinishLaunching"
        case .firstFrameMs: return "firstFrame"
        default: return nil
        }
    }
}

/// Whether a launch followed a reinstall or reboot (cold) or came right after another (warm).
package enum LaunchKind: String, Sendable, Hashable, Codable, CaseIterable {
    case cold
    case warm
}

/// What became of one launch. Only `ok` samples carry numbers into statistics.
package enum SampleStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Launched and measured.
    case ok
    /// Launched, but printed no statistics and no markers (e.g. dyld3/dyld4 without markers).
    case noMetrics = "no-metrics"
    /// Still running at `--timeout`; killed by the harness.
    case timeout
    /// Stopped by a signal or exited before its launch was complete.
    case crashed
    /// Exited by itself with a non-zero status after printing its launch output: the figures are kept in
    /// the sample (samples.jsonl) but not counted, since a launch that fails is not a launch to time.
    case exitedEarly = "exited-early"
    /// The reinstall before this cold launch failed.
    case installFailed = "install-failed"
    /// debugserver refused to launch it (signing, locked device, no developer image, iOS 17+).
    case launchRefused = "launch-refused"
    /// The device disappeared during the launch.
    case deviceLost = "device-lost"

    /// Whether the launch counts as a failure in statistics (`failures` column).
    package var isFailure: Bool { self != .ok && self != .noMetrics }
}
