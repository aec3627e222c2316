import Foundation

/// What a launch's kdebug capture adds to its sample.
enum KdebugSampling {
    /// The phases kdebug measures, by the column they fill.
    static func values(_ phases: DyldLaunchPhases) -> [(Metric, Double?)] {
        [
            (.totalPremainMs, phases.totalPremainMs), (.dylibLoadingMs, phases.dylibLoadingMs),
            (.rebaseBindingMs, phases.rebaseBindingMs), (.objcSetupMs, phases.objcSetupMs),
            (.initializerMs, phases.initializerMs), (.processCreationMs, phases.processCreationMs),
            (.closureBuildMs, phases.closureBuildMs),
        ]
    }

    /// Checks the sample's printed phases against the capture's, phase by phase, and tells the recorder how
    /// far apart they were (the device's note sums it up); a disagreement is also the launch's warning.
    static func crossCheck(_ capture: KdebugLaunchRecorder.Capture, of sample: inout Sample) -> Double? {
        guard let phases = capture.phases, sample.premainSource == .dyldStatistics else { return nil }
        var largest: Double?
        for (metric, value) in values(phases) where fourPhases.contains(metric) {
            guard let value, let printed = sample[metric] else { continue }
            largest = max(largest ?? 0, abs(value - printed))
        }
        sample.warnings += disagreements(phases, sample)
        return largest
    }

    /// The four phases dyld printed but kdebug does not time on this launch (dyld3's initializers, an absent
    /// OBJC_MAP): the cross-check skips them rather than compare a number with nothing.
    static func untimed(_ capture: KdebugLaunchRecorder.Capture, _ sample: Sample) -> [Metric] {
        guard let phases = capture.phases else { return [] }
        return values(phases).compactMap { metric, value in
            fourPhases.contains(metric) && value == nil && sample[metric] != nil ? metric : nil
        }
    }

    static let fourPhases: [Metric] = [.dylibLoadingMs, .rebaseBindingMs, .objcSetupMs, .initializerMs]

    /// A warning per phase on which kdebug and dyld's printed statistics differ by more than 0.1 ms and 1 %.
    static func disagreements(_ phases: DyldLaunchPhases, _ sample: Sample) -> [String] {
        values(phases).compactMap { metric, value in
            guard fourPhases.contains(metric), let value, let printed = sample[metric],
                abs(value - printed) > max(0.1, 0.01 * printed)
            else { return nil }
            return "kdebug and dyld's statistics disagree on \(metric.title): "
                + "\(DecimalText.fixed(value, maxFractionDigits: 3)) vs \(DecimalText.fixed(printed, maxFractionDigits: 3)) ms"
        }
    }

    /// Puts what the trace shows after main in the sample, whichever source timed pre-main: the page faults
    /// from exec to the first frame, and UIKit's `didFinishLaunchingWithOptions` end where LaunchProbe printed
    /// no `didFinishLaunching` (where it did, its marker stays and a disagreement past 1 ms and 2 % is noted:
    /// the marker is printed inside the delegate method, UIKit's code after it returns).
    static func applyAfterMain(_ capture: KdebugLaunchRecorder.Capture, to sample: inout Sample) {
        guard let phases = capture.phases else { return }
        if let faults = phases.pageIns {
            sample.metrics[.pageIns] = Double(faults.pageIns)
            sample.metrics[.pageInMs] = faults.pageInMs
            sample.metrics[.zeroFillFaults] = Double(faults.zeroFill)
            sample.metrics[.cowFaults] = Double(faults.copyOnWrite)
            sample.metrics[.compressorFaults] = Double(faults.compressor)
            sample.pageInsByImage = faults.byImage
        }
        guard let uikit = phases.didFinishLaunchingMs else { return }
        if let marker = sample[.didFinishLaunchingMs] {
            if abs(uikit - marker) > max(1, 0.02 * marker) {
                sample.warnings.append(
                    "UIKit's didFinishLaunching code (\(DecimalText.fixed(uikit, maxFractionDigits: 3)) ms) and "
                        + "LaunchProbe's marker (\(DecimalText.fixed(marker, maxFractionDigits: 3)) ms) disagree")
            }
        } else {
            sample.metrics[.didFinishLaunchingMs] = uikit
        }
    }

    /// Puts UIKit's first frame in the sample with its source and strays. An anchored frame (its END after the
    /// BEGIN) is on the same clock as the phases and takes the column; an unanchored one (no BEGIN) only where
    /// LaunchProbe printed no `firstFrame`, since a stray END could stand in for it and the marker cannot be
    /// fooled so. Where both exist and differ by more than 1 ms and 2 % the launch warns, as for
    /// didFinishLaunching.
    static func applyFirstFrame(_ phases: DyldLaunchPhases, to sample: inout Sample) {
        if phases.mainTimestamp != nil, phases.execTimestamp != nil {
            sample.strayFrameEnds = phases.strayFrameEndTimestamps.count
        }
        guard let frame = phases.firstFrameMs, let source = phases.firstFrameSource else { return }
        if let marker = sample[.firstFrameMs], abs(frame - marker) > max(1, 0.02 * marker) {
            sample.warnings.append(
                "UIKit's first frame (\(DecimalText.fixed(frame, maxFractionDigits: 3)) ms, \(source.rawValue)) and "
                    + "LaunchProbe's firstFrame marker (\(DecimalText.fixed(marker, maxFractionDigits: 3)) ms) disagree"
            )
        }
        guard source == .uikitAnchored || sample[.firstFrameMs] == nil else { return }
        sample.metrics[.firstFrameMs] = frame
        sample.firstFrameSource = source
    }

    /// Names a STATIC_INITIALIZER interval by its function through `names` (its image and offset).
    static func initializerNamer(_ names: InitializerNames) -> ChromeTrace.InitializerNamer {
        { interval in
            guard interval.kind == .staticInitializer, let path = interval.image,
                let offset = interval.initializerOffset
            else { return nil }
            return names.function(imagePath: path, offset: offset)
        }
    }

    /// Writes the launch's raw kdebug beside its log (`kdebug/UDID/0001-cold.kdebug`), whether its phases
    /// were used, only cross-checked, or not found: a launch to look into has its trace.
    static func keepRaw(_ capture: KdebugLaunchRecorder.Capture, of sample: inout Sample, store: ResultsStore) {
        guard !capture.raw.isEmpty else { return }
        do {
            _ = try store.writeRawKdebug(
                capture.raw, udid: sample.deviceUDID, iteration: sample.iteration, kind: sample.kind,
                launchIndex: sample.launchIndex)
        } catch {
            sample.warnings.append("kdebug: the launch's raw trace could not be written: \(DeviceRun.describe(error))")
        }
    }

    /// Puts the capture's phases in the sample (kdebug's values replace dyld's printed ones, which are
    /// compared first: a phase on which they disagree by more than 0.1 ms and 1 % gets a warning), names
    /// the initializers by image, and writes the launch's timeline beside its log (its static initializers under
    /// their function names when `names` has the app's symbols).
    static func apply(
        _ capture: KdebugLaunchRecorder.Capture, to sample: inout Sample, store: ResultsStore,
        names: InitializerNames? = nil
    ) {
        sample.warnings += capture.warnings
        guard let phases = capture.phases else { return }
        // LaunchProbe's own values, before kdebug's first frame may take the column.
        let markers = sample[.mainMs].map {
            ChromeTrace.Markers(
                mainMs: $0, didFinishLaunchingMs: sample[.didFinishLaunchingMs], firstFrameMs: sample[.firstFrameMs])
        }
        sample.warnings += disagreements(phases, sample)
        for (metric, value) in values(phases) { sample.metrics[metric] = value }
        applyFirstFrame(phases, to: &sample)
        sample.premainSource = .kdebug
        if !phases.initializersByImage.isEmpty {
            sample.initializers = phases.initializersByImage.map { path, ms in
                InitializerTime(image: String(path.split(separator: "/").last ?? Substring(path)), ms: ms)
            }.sorted { ($0.ms ?? 0, $1.image) > ($1.ms ?? 0, $0.image) }
        }
        if sample.bundleImages.isEmpty {
            sample.bundleImages = phases.timeline.filter { $0.kind == .mapImage }.compactMap {
                $0.image.flatMap { LoadedImage(path: $0).pathInsideAppBundle }
            }
        }
        do {
            _ = try store.writeTrace(
                ChromeTrace.json(phases, initializerName: names.map(Self.initializerNamer), markers: markers),
                udid: sample.deviceUDID,
                iteration: sample.iteration, kind: sample.kind,
                launchIndex: sample.launchIndex)
        } catch {
            sample.warnings.append("kdebug: the launch's timeline could not be written: \(DeviceRun.describe(error))")
        }
    }
}
