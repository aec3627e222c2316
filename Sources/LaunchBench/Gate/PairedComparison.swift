import Foundation

/// The verdict of an A/B run (`run NEW --against BASE`): per device × launch kind × metric, the new build
/// against the base build from their pairs (``PairedSequentialVerdict`` on the per-pair log ratios), with
/// what the two builds loaded differently. What `run`, `report` and `compare` of an A/B folder say.
package struct PairedComparison: Sendable, Hashable {
    /// The threshold, level and metrics.
    package var settings: GateSettings
    /// The looks the run made (run.json's `pairedDesign`).
    package var design: PairedSequentialVerdict
    /// The two builds as run.json names them, new first; empty when it names none.
    package var builds: [RunManifest.Build]
    /// Devices in run order, then kind, then metric.
    package var entries: [PairedEntry]
    /// What else to know: an A/A run, images one build loaded and the other did not.
    package var notes: [String]

    /// The entries judged slower.
    package var regressions: [PairedEntry] { entries.filter { $0.verdict == .regression } }
    /// The entries judged faster.
    var improvements: [PairedEntry] { entries.filter { $0.verdict == .improvement } }
    /// The entries the pairs could not judge (too few pairs, a device lost before they decided).
    package var undecided: [PairedEntry] {
        entries.filter { $0.verdict == .insufficientData || $0.verdict == .notComparable }
    }

    /// Pairs `new` (DIR's launches) with `base` (DIR/base/'s) device by device.
    /// - Parameters:
    ///   - manifest: the A/B run's run.json: its design, builds and each device's outcome (a device whose
    ///     launches ended as planned is judged at its last pair; one lost or stopped before the pairs decided
    ///     is undecided).
    package init(new: GateLaunches, base: GateLaunches, manifest: RunManifest?, settings: GateSettings) {
        self.settings = settings
        builds = manifest?.builds ?? []
        let pairsMade = new.summary.devices.flatMap { $0.kinds.map(\.points.count) }.max() ?? 0
        design = manifest?.pairedDesign ?? PairedSequentialVerdict(maxPairs: max(pairsMade, 5))
        entries = []
        notes = []
        for device in new.summary.devices {
            let udid = device.device.udid
            let sources = (old: base.counts.sources(of: udid), new: new.counts.sources(of: udid))
            let outcome = manifest?.outcome(of: device.device.udid)?.outcome
            let completed = outcome == nil || outcome == .measured
            for newKind in device.kinds {
                let baseKind = base.launches(device.device.udid, newKind.kind)
                let basePoints = baseKind?.points ?? []
                // What moved between the builds on this device and kind, as a baseline comparison names it.
                let explanation = baseKind.map {
                    GateExplanation(
                        baseline: $0.points, $0.images, current: newKind.points, newKind.images,
                        level: 1 - settings.alpha)
                }
                // Like with like, as the gate against a baseline: a metric BASE measured and NEW did not, or one
                // whose source differs between the builds, is not comparable unless --compare-anyway.
                let choice = GateMetricChoice(
                    baseline: basePoints, current: newKind.points, settings: settings, sources: sources,
                    names: ("BASE", "NEW"))
                if let note = choice.note(device: device.device, kind: newKind.kind) { notes.append(note) }
                for metric in choice.metrics {
                    let pairs = PairedLaunches(metric: metric, base: basePoints, new: newKind.points)
                    var entry = PairedEntry(
                        device: device.device, kind: newKind.kind, pairs: pairs, design: design,
                        settings: settings, completed: completed)
                    entry.explanation = explanation
                    entry.markUnlike(choice.changes(of: metric), compareAnyway: settings.compareAnyway)
                    entries.append(entry)
                }
            }
        }
        notes += Self.imageDifferences(new: new, base: base)
        let digests = builds.compactMap(\.digest)
        if digests.count == 2, digests[0] == digests[1] {
            notes.append(Self.sameBuildNote)
        }
    }

    /// Said when both builds are one: the run measured the phone's noise, which is what it is for then.
    package static let sameBuildNote =
        "NEW and BASE are the same build (same bundle digest): an A/A run, useful to calibrate — it shows "
        + "the noise of the phone and the smallest change these pairs can see."

    /// Images from the bundle that a device loaded with the new build and never with the base build, and the
    /// reverse: what a dependency change brought in.
    static func imageDifferences(new: GateLaunches, base: GateLaunches) -> [String] {
        func loaded(_ launches: GateLaunches) -> [String: Set<String>] {
            launches.counts.firstLoads.reduce(into: [:]) { $0[$1.deviceUDID ?? "", default: []].insert($1.image) }
        }
        let newImages = loaded(new)
        let baseImages = loaded(base)
        var notes: [String] = []
        for device in new.devices {
            let added = (newImages[device.udid] ?? []).subtracting(baseImages[device.udid] ?? []).sorted()
            let dropped = (baseImages[device.udid] ?? []).subtracting(newImages[device.udid] ?? []).sorted()
            if !added.isEmpty {
                notes.append(
                    "NEW loads \(added.joined(separator: ", ")) on \(device.name) (\(device.udid)), BASE does not.")
            }
            if !dropped.isEmpty {
                notes.append(
                    "BASE loads \(dropped.joined(separator: ", ")) on \(device.name) (\(device.udid)), NEW does not.")
            }
        }
        return notes
    }
}

/// One device × launch kind × metric of an A/B run.
package struct PairedEntry: Sendable, Hashable {
    /// The device (as its new build's launches name it).
    package var device: DeviceIdentity
    /// Cold or warm.
    package var kind: LaunchKind
    /// The metric paired.
    package var metric: Metric
    /// Pairs judged.
    package var pairs: Int
    /// The medians of the paired launches, ms; `nil` without pairs.
    package var baseMedian: Double?
    package var newMedian: Double?
    /// Where the pairs stand.
    package var decision: PairedSequentialVerdict.Decision
    /// What the gate concludes: regression, improvement, unchanged, or insufficient data.
    package var verdict: GateVerdict
    /// The verdict in one sentence, naming the smallest change these pairs could show.
    package var reason: String
    /// The smallest change these pairs could have shown, %; `nil` with too few pairs.
    package var smallestVisiblePercent: Double?
    /// Why the device × kind moved between BASE and NEW (phases, images, initializer functions, page-ins), as a
    /// baseline comparison explains it; one for all the kind's metrics, `nil` when BASE made no launch of the kind.
    package var explanation: GateExplanation? = nil

    init(
        device: DeviceIdentity, kind: LaunchKind, pairs: PairedLaunches, design: PairedSequentialVerdict,
        settings: GateSettings, completed: Bool
    ) {
        self.device = device
        self.kind = kind
        metric = pairs.metric
        self.pairs = pairs.count
        baseMedian = LaunchesNeeded.median(pairs.base)
        newMedian = LaunchesNeeded.median(pairs.new)
        var decision = design.decide(
            base: pairs.base, new: pairs.new, thresholdPercent: settings.thresholdPercent, alpha: settings.alpha)
        let fewest = max(design.minimumPairs, PairedSequentialVerdict.fewestPairs(alpha: settings.alpha))
        if decision == .continue, completed {
            // The device made every planned iteration but some pairs failed: its last pair is the last look.
            decision =
                pairs.count < fewest
                ? .tooFewPairs(pairs: pairs.count, fewest: fewest, alpha: settings.alpha)
                : PairedSequentialVerdict(minimumPairs: design.minimumPairs, maxPairs: pairs.count).decide(
                    base: pairs.base, new: pairs.new, thresholdPercent: settings.thresholdPercent,
                    alpha: settings.alpha)
        }
        self.decision = decision
        verdict = Self.verdict(of: decision)
        reason = PairedSequentialVerdict.describe(decision, thresholdPercent: settings.thresholdPercent)
        switch decision {
        case .continue:
            // Still open when the device stopped: what the pairs made could have shown, at this look's level.
            let logs = PairedShift.logRatios(base: pairs.base, new: pairs.new)
            let look = min(logs.count, design.maxPairs) - design.minimumPairs
            smallestVisiblePercent =
                look >= 0
                ? SmallestVisibleChange.paired(
                    logRatios: logs,
                    level: PairedSequentialVerdict.boundary(design, alpha: settings.alpha).level(atLook: look))
                : nil
            reason =
                "Undecided: the device's launches ended (lost, stopped or interrupted) after \(pairs.count) "
                + "pair\(pairs.count == 1 ? "" : "s"), before the pairs decided"
                + (smallestVisiblePercent.map {
                    "; the smallest change these pairs could show is ±\(DecimalText.fixed($0, maxFractionDigits: 1)) %"
                } ?? "; at this look \(pairs.count) pairs could show no change at all") + "."
        case .settled(_, _, let smallest), .noChangeShown(_, let smallest):
            smallestVisiblePercent = smallest
        case .tooFewPairs:
            smallestVisiblePercent = nil
            reason += " " + Self.missingPairsCause(pairs)
        }
    }

    /// Where the missing pairs went: launches of either build that failed, or too few iterations.
    static func missingPairsCause(_ pairs: PairedLaunches) -> String {
        let lost = pairs.slots - pairs.count
        guard lost > 0 else {
            return "The run made \(pairs.slots) launch\(pairs.slots == 1 ? "" : "es") of this kind per build: raise "
                + "--iterations."
        }
        return "\(lost) of \(pairs.slots) launches of this kind left no pair (an install or launch of either build "
            + "failed, see the logs): fix that, or raise --iterations."
    }

    /// The gate's verdict of a paired decision: no change shown is unchanged (exit 0, the smallest visible change
    /// named), too few pairs or still open is insufficient data (exit 3).
    static func verdict(of decision: PairedSequentialVerdict.Decision) -> GateVerdict {
        switch decision {
        case .continue, .noChangeShown(nil, _), .tooFewPairs: return .insufficientData
        case .noChangeShown: return .unchanged
        case .settled(let verdict, _, _): return verdict
        }
    }

    /// The estimated change of the new build, % of the base; `nil` without an estimate.
    package var shift: PairedShift? {
        switch decision {
        case .continue: return nil
        case .settled(_, let shift, _): return shift
        case .noChangeShown(let shift, _): return shift
        case .tooFewPairs: return nil
        }
    }
}
