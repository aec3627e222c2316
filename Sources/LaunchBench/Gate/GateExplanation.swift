/// Why a device × launch kind moved between the baseline and the current run: the shift of each
/// phase (Hodges–Lehmann with its interval, the method of the verdict) and the images that appeared,
/// disappeared or changed initializer time the most.
package struct GateExplanation: Sendable, Hashable {
    /// How much one pre-main phase moved.
    package struct PhaseShift: Sendable, Hashable {
        /// The phase's name as reports print it (e.g. `dylib loading`).
        package var phase: String
        /// Current − baseline, ms, with its interval (`nil` ends when the samples are too small).
        package var shift: HodgesLehmannShift
        /// Launches of the baseline that measured the phase.
        package var baselineN: Int
        /// Launches of the current run that measured the phase.
        package var currentN: Int
    }

    /// An image (dylib or framework) that appeared, disappeared or whose initializer time moved.
    package struct ImageChange: Sendable, Hashable {
        /// What happened to the image between the runs.
        package enum Change: String, Sendable, Hashable {
            /// In the current run's library or initializer lists, in no launch of the baseline.
            case appeared
            /// The reverse.
            case disappeared
            /// Listed on both sides; the median initializer time moved.
            case changed
        }

        /// The image's file name.
        package var image: String
        /// Whether it lies inside the app bundle (the app's own code, not the system's).
        package var inBundle: Bool
        /// Appeared, disappeared or changed.
        package var change: Change
        /// Median initializer time on each side, over the launches that listed it; `nil` when none did.
        package var baselineMedianMs: Double?
        /// The current run's median initializer time, ms; `nil` when no launch listed it.
        package var currentMedianMs: Double?

        /// current − baseline; an image listed on one side only counts its own time.
        package var deltaMs: Double? {
            switch (baselineMedianMs, currentMedianMs) {
            case (let b?, let c?): return c - b
            case (nil, let c?): return change == .appeared ? c : nil
            case (let b?, nil): return change == .disappeared ? -b : nil
            default: return nil
            }
        }
    }

    /// How the median page-ins of the launches moved (kdebug's `page_ins`), when both sides traced page faults.
    package struct PageInChange: Sendable, Hashable {
        /// The baseline's median page-ins per launch.
        package var baselineMedian: Double
        /// The current run's.
        package var currentMedian: Double

        /// `page-ins +912 (+35 %)`.
        package var text: String {
            let delta = currentMedian - baselineMedian
            let sign = delta >= 0 ? "+" : "-"
            var text = "page-ins \(sign)\(DecimalText.fixed(abs(delta), maxFractionDigits: 0))"
            if baselineMedian > 0 {
                text += " (\(sign)\(DecimalText.fixed(abs(delta) / baselineMedian * 100, maxFractionDigits: 0)) %)"
            }
            return text
        }
    }

    /// Phases measured on both sides, in launch order.
    package var phases: [PhaseShift]
    /// The page-ins' change, when it is past ``minimumPageInChangeFraction`` of the baseline's median.
    package var pageIns: PageInChange? = nil
    /// Page-in changes smaller than this share of the baseline's median are not named.
    static let minimumPageInChangeFraction = 0.1
    /// Appeared and disappeared images, then the largest initializer changes (at most `imageLimit` of those).
    package var images: [ImageChange]
    /// Static initializer functions that appeared in a bundle image, then those whose median moved past the
    /// same noise floor as an image's (at most `imageLimit`), when kdebug named them on both sides.
    package var functions: [FunctionChange] = []

    static let imageLimit = 3
    /// Initializer changes smaller than this are launch-to-launch noise, not a cause worth naming.
    static let minimumImageChangeMs = 1.0
    /// … and so are changes under 10 % of the image's baseline time.
    static let minimumImageChangeFraction = 0.1

    /// - Parameters:
    ///   - baseline, current: one device's launches of one kind on each side (failed ones are skipped).
    ///   - level: the confidence level of the phase intervals (the gate's 1 − α).
    package init(baseline: [Sample], current: [Sample], level: Double = 0.95) {
        self.init(
            baseline: baseline.map(LaunchPoint.init), ImageStatistics(samples: baseline),
            current: current.map(LaunchPoint.init), ImageStatistics(samples: current), level: level)
    }

    /// The explanation from each side's points and image statistics (what `GateLaunches` keeps); failed
    /// launches' points are skipped, and `ImageStatistics` leaves them out already.
    init(
        baseline: [LaunchPoint], _ before: ImageStatistics, current: [LaunchPoint], _ after: ImageStatistics,
        level: Double
    ) {
        let old = baseline.filter { !$0.status.isFailure }
        let new = current.filter { !$0.status.isFailure }
        phases = Self.phaseDefinitions.compactMap { name, length in
            let x = old.compactMap(length).filter(\.isFinite)
            let y = new.compactMap(length).filter(\.isFinite)
            guard let shift = HodgesLehmannShift(baseline: x, current: y, level: level) else { return nil }
            return PhaseShift(phase: name, shift: shift, baselineN: x.count, currentN: y.count)
        }
        let beforeByName = Dictionary(before.images.map { ($0.image, $0) }, uniquingKeysWith: { a, _ in a })
        let afterByName = Dictionary(after.images.map { ($0.image, $0) }, uniquingKeysWith: { a, _ in a })
        // An image is only "new" when the baseline could have shown it: its lists were captured.
        let baselineSaw = { (image: ImageStatistics.Image) in
            image.inBundle ? before.launchesWithLibraries > 0 : before.launchesWithInitializerList > 0
        }
        let currentSaw = { (image: ImageStatistics.Image) in
            image.inBundle ? after.launchesWithLibraries > 0 : after.launchesWithInitializerList > 0
        }
        var changes: [ImageChange] = []
        for image in after.images where beforeByName[image.image] == nil && baselineSaw(image) {
            changes.append(
                ImageChange(
                    image: image.image, inBundle: image.inBundle, change: .appeared, baselineMedianMs: nil,
                    currentMedianMs: image.medianInitializerMs))
        }
        for image in before.images where afterByName[image.image] == nil && currentSaw(image) {
            changes.append(
                ImageChange(
                    image: image.image, inBundle: image.inBundle, change: .disappeared,
                    baselineMedianMs: image.medianInitializerMs, currentMedianMs: nil))
        }
        // New bundle dylibs first (they cost dylib loading), then by the size of their initializer time.
        changes.sort { a, b in
            if a.inBundle != b.inBundle { return a.inBundle }
            return abs(a.deltaMs ?? 0) > abs(b.deltaMs ?? 0)
        }
        let moved = after.images.compactMap { image -> ImageChange? in
            guard let old = beforeByName[image.image], let b = old.medianInitializerMs,
                let c = image.medianInitializerMs,
                abs(c - b) >= max(Self.minimumImageChangeMs, b * Self.minimumImageChangeFraction)
            else { return nil }
            return ImageChange(
                image: image.image, inBundle: image.inBundle || old.inBundle, change: .changed, baselineMedianMs: b,
                currentMedianMs: c)
        }
        .sorted { abs($0.deltaMs ?? 0) > abs($1.deltaMs ?? 0) }
        pageIns = Self.pageInChange(old, new)
        images = changes + moved.prefix(Self.imageLimit)
        functions = Self.functionChanges(before, after)
    }

    /// The phases compared: dyld's four, then the after-main stretches from the app's markers.
    static var phaseDefinitions: [(String, @Sendable (LaunchPoint) -> Double?)] {
        [
            ("dylib loading", { $0[.dylibLoadingMs] }),
            ("rebase/binding", { $0[.rebaseBindingMs] }),
            ("ObjC setup", { $0[.objcSetupMs] }),
            ("initializers", { $0[.initializerMs] }),
            // Without dyld's phases (iOS 15+) the whole start → main stretch is one phase, from the markers.
            (PhaseBreakdown.wholePreMain, { s in s[.totalPremainMs] == nil ? s[.mainMs] : nil }),
            (
                "main → didFinishLaunching",
                { s in s[.didFinishLaunchingMs].flatMap { end in s[.mainMs].map { end - $0 } } }
            ),
            (
                "didFinishLaunching → first frame",
                { s in s[.firstFrameMs].flatMap { end in s[.didFinishLaunchingMs].map { end - $0 } } }
            ),
        ]
    }

    /// The median page-ins of each side, when both traced faults and they moved past the threshold (and by at
    /// least one page).
    static func pageInChange(_ old: [LaunchPoint], _ new: [LaunchPoint]) -> PageInChange? {
        let before = old.compactMap { $0[.pageIns] }.sorted()
        let after = new.compactMap { $0[.pageIns] }.sorted()
        guard !before.isEmpty, !after.isEmpty else { return nil }
        let change = PageInChange(
            baselineMedian: Percentile.of(sorted: before, fraction: 0.5),
            currentMedian: Percentile.of(sorted: after, fraction: 0.5))
        let delta = abs(change.currentMedian - change.baselineMedian)
        guard delta >= max(1, change.baselineMedian * minimumPageInChangeFraction) else { return nil }
        return change
    }

    /// The phase that moved the most in the direction of `totalShiftMs` (`nil` when none did).
    package func mainPhase(forShift totalShiftMs: Double) -> PhaseShift? {
        phases.filter { ($0.shift.shift > 0) == (totalShiftMs > 0) && $0.shift.shift != 0 }
            .max { abs($0.shift.shift) < abs($1.shift.shift) }
    }

    /// `+84 ms, of which dylib loading +71 ms: new bundle dylib Analytics.framework` — the whole shift,
    /// the phase that carried most of it, and the images that explain it.
    package func sentence(totalShiftMs: Double?) -> String? {
        var text = ""
        if let total = totalShiftMs {
            text = Self.signedMs(total)
            if let phase = mainPhase(forShift: total) {
                text += ", of which \(phase.phase) \(Self.signedMs(phase.shift.shift))"
            }
        }
        let causes = images.prefix(Self.imageLimit).map(Self.describe) + functions.prefix(Self.imageLimit).map(\.text)
        let named = causes + (pageIns.map { [$0.text] } ?? [])
        if !named.isEmpty { text += (text.isEmpty ? "" : ": ") + named.joined(separator: ", ") }
        return text.isEmpty ? nil : text
    }

    /// `new bundle dylib Analytics.framework (initializer 40.1 ms)`, `SampleKit initializer +12.3 ms`.
    static func describe(_ change: ImageChange) -> String {
        let name = change.inBundle ? AllowedDylibs.itemName(of: change.image) : change.image
        let what = change.inBundle ? "bundle dylib" : "image"
        switch change.change {
        case .appeared:
            let time = change.currentMedianMs.map { " (initializer \(GateText.ms($0)) ms)" } ?? ""
            return "new \(what) \(name)\(time)"
        case .disappeared:
            return "\(what) \(name) no longer loaded"
        case .changed:
            return "\(name) initializer \(change.deltaMs.map(signedMs) ?? "–")"
        }
    }

    static func signedMs(_ value: Double) -> String {
        let text = GateText.ms(value)
        return (value >= 0 && !text.hasPrefix("-") ? "+" : "") + text + " ms"
    }
}
