/// "What to look at" on one device: where a launch's time goes and which images cause it — the
/// phases' shares, the embedded dylib count against Apple's advice, the slowest initializers. Shared by
/// the HTML report, `report --format table` and the end-of-run terminal summary, so they say the same.
struct LaunchCauses: Sendable, Hashable {
    /// One phase of the `PhaseBreakdown` and its part of the bar.
    struct PhaseShare: Sendable, Hashable {
        /// The phase's label, one of `PhaseBreakdown.names`.
        var name: String
        /// The phase's median length over the launches that measured it, in ms.
        var medianMs: Double
        /// Share of the sum of the phase medians, in percent.
        var percent: Double
    }

    /// The launch kind described: cold when the device had cold launches, else its first kind.
    var kind: LaunchKind
    /// The measured phases in launch order; empty when none was measured.
    var phases: [PhaseShare]
    /// Bundle images and initializer times of those launches.
    var images: ImageStatistics

    /// Of the cold launches when there are any (the case launch-time work is about), else the first kind.
    init?(_ device: DeviceSummary) {
        guard let kind = device.kind(.cold) ?? device.kinds.first else { return nil }
        self.kind = kind.kind
        images = kind.images
        let breakdown = PhaseBreakdown(points: kind.points)
        let total = breakdown.totalMs
        phases = breakdown.phases.map {
            PhaseShare(name: $0.name, medianMs: $0.medianMs, percent: total > 0 ? $0.medianMs / total * 100 : 0)
        }
    }

    /// `dylib loading 75.1 ms (62 %) · rebase/binding 12 ms (10 %) · …`; `nil` when no phase was measured.
    var phaseLine: String? {
        guard !phases.isEmpty else { return nil }
        return phases.map { phase in
            let share = DecimalText.fixed(phase.percent, maxFractionDigits: 0)
            return "\(phase.name) \(ReportText.ms(phase.medianMs)) ms (\(share) %)"
        }
        .joined(separator: " · ")
    }

    /// The embedded dylib count against the advice, with their names.
    var dylibLine: String {
        guard images.launchesWithLibraries > 0 else {
            return "Embedded dylibs: not captured (run with --allowed-dylibs, or --env DYLD_PRINT_LIBRARIES=1)."
        }
        let dylibs = images.bundleDylibs
        let advice = ImageStatistics.advisedBundleDylibs
        let verdict = dylibs.count > advice ? "more than" : "within"
        let names = dylibs.isEmpty ? "" : ": " + dylibs.map(AllowedDylibs.itemName).joined(separator: ", ")
        return "Embedded dylibs loaded at launch: \(dylibs.count), \(verdict) Apple's advice of at most about "
            + "\(advice)\(names)."
    }

    /// The slowest initializers by median, at most `limit`, with how many launches listed each.
    func initializerLine(limit: Int = 5) -> String {
        guard images.launchesWithInitializerList > 0 else {
            if images.launchesWithInitializerPhase > 0 {
                return "Initializers by image: not in these samples (written by an older launchbench) and no"
                    + " launch log to read them from."
            }
            return "Initializers by image: dyld printed no initializer list (iOS 15+, or no dyld statistics)."
        }
        let top = images.initializers.prefix(limit)
        guard !top.isEmpty else { return "Initializers by image: no image was over dyld's listing threshold." }
        return "Slowest initializers (median over the launches listing them): "
            + top.map { Self.describe($0, of: images.launchesWithInitializerList) }.joined(separator: ", ") + "."
    }

    /// The slowest static initializer functions kdebug named (`initializers.csv`), at most `limit`; nil when no
    /// launch named them.
    func functionLine(limit: Int = 5) -> String? {
        let top = images.functions.prefix(limit)
        guard !top.isEmpty else { return nil }
        return "Slowest initializer functions (median): "
            + top.map { "\($0.function) in \($0.image) \(ReportText.ms($0.medianMs)) ms" }.joined(separator: ", ")
            + "."
    }

    /// `SampleKit 12.3 ms (8/10 launches)`.
    static func describe(_ image: ImageStatistics.Image, of launches: Int) -> String {
        let name = image.inBundle ? AllowedDylibs.itemName(of: image.image) : image.image
        return "\(name) \(ReportText.ms(image.medianInitializerMs)) ms (\(image.launchesListed)/\(launches) launches)"
    }
}
