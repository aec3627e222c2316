import ArgumentParser
import LaunchBench

/// The gate flags `compare` and `run` share, declared once: threshold, metrics, the JUnit and Markdown copies
/// of the report, the dylib allow list. Each command words their help its own way (`run`'s apply only with
/// `--baseline`), so the texts come from `Help`.
struct GateCheckOptions<Help: GateCheckHelp>: ParsableArguments {
    @Option(help: Help.threshold)
    var threshold: Double = 5

    @Option(name: .customLong("metric"), help: Help.metric)
    var metrics: [String] = []

    @Option(help: Help.junit, completion: .file())
    var junit: String?

    @Option(help: Help.markdown, completion: .file())
    var markdown: String?

    @Option(help: Help.allowedDylibs, completion: .file())
    var allowedDylibs: String?

    @Flag(
        help: ArgumentHelp(
            "Judge devices whose model or iOS version changed since the baseline, metrics whose source changed "
                + "(pre-main, first frame, launcher), and a baseline of another app, instead of calling them not "
                + "comparable (exit 3); where the run lacks the baseline's metric, judge the next one both "
                + "measured. The report names every such change."))
    var compareAnyway = false

    func validate() throws {
        try GateOptions.validate(threshold: threshold, metrics: metrics)
        try OutputPaths.checkFile(junit, option: "--junit", example: "launch-gate.xml")
        try OutputPaths.checkFile(markdown, option: "--markdown", example: "launch-gate.md")
    }

    var settings: GateSettings {
        var settings = GateSettings(thresholdPercent: threshold, metrics: metrics.compactMap(Metric.init(rawValue:)))
        settings.compareAnyway = compareAnyway
        return settings
    }
}

/// The help texts of `GateCheckOptions`, per command.
protocol GateCheckHelp {
    static var threshold: ArgumentHelp { get }
    static var metric: ArgumentHelp { get }
    static var junit: ArgumentHelp { get }
    static var markdown: ArgumentHelp { get }
    static var allowedDylibs: ArgumentHelp { get }
}

/// `compare`'s wording: the gate is all it does.
enum CompareHelp: GateCheckHelp {
    static let threshold = ArgumentHelp(
        "Relative change of the median launch time that counts, in percent.", valueName: "pct")
    static let metric = ArgumentHelp(
        "Metric to compare (repeatable): a samples.csv column such as total_premain_ms, first_frame_ms, wall_ms.",
        valueName: "name")
    static let junit = ArgumentHelp("Also write JUnit XML to this file (for the CI's test report).", valueName: "file")
    static let markdown = ArgumentHelp(
        "Also write Markdown to this file (e.g. $GITHUB_STEP_SUMMARY).", valueName: "file")
    static let allowedDylibs = ArgumentHelp(
        "Fail when the current run loaded (or embeds) an image from the app bundle this list does not name.",
        valueName: "file")
}

/// `run`'s wording: the comparison happens only with `--baseline`.
enum RunGateHelp: GateCheckHelp {
    static let threshold = ArgumentHelp(
        "With --baseline: the relative change of the median that counts, in percent.", valueName: "pct")
    static let metric = ArgumentHelp(
        "With --baseline: metric to compare (repeatable; default total_premain_ms, else first_frame_ms, else "
            + "wall_ms).",
        valueName: "name")
    static let junit = ArgumentHelp(
        "With --baseline: also write the gate's JUnit XML to this file.", valueName: "file")
    static let markdown = ArgumentHelp(
        "With --baseline: also append the gate's Markdown to this file (e.g. $GITHUB_STEP_SUMMARY).",
        valueName: "file")
    static let allowedDylibs = ArgumentHelp(
        "Dylib guard: fail when an image from the app bundle that this list (one name or glob per line, # comments) "
            + "does not name is embedded or loads at launch.",
        valueName: "file")
}

/// The CI-gate options of `run`: baseline comparison, dylib guard, adaptive sample size.
struct GateOptions: ParsableArguments {
    /// The checks of `--threshold` and `--metric` (`run`, `compare` and `trend`): a sane threshold and known
    /// metric names.
    static func validate(threshold: Double, metrics: [String]) throws {
        guard threshold.isFinite, threshold >= 0, threshold < 1000 else {
            throw ValidationError("--threshold \(threshold) must be a percentage from 0 to 1000, e.g. --threshold 5.")
        }
        for name in metrics where Metric(rawValue: name) == nil {
            throw ValidationError(
                "--metric \(name) is not a metric. Use one of: \(Metric.allCases.map(\.rawValue).joined(separator: ", "))."
            )
        }
    }

    @Option(
        help: ArgumentHelp(
            "Compare with this results folder (or its summary.json) when the run ends; exit 2 on a regression.",
            valueName: "path"), completion: .file())
    var baseline: String?

    @Option(
        help: ArgumentHelp(
            "A/B run: measure this other build of the same app (BASE) in the same run, interleaved with APP (NEW) "
                + "on every device in ABBA order, and judge NEW against BASE pair by pair; exit 2 when NEW is slower.",
            valueName: "base-app"), completion: .file())
    var against: String?

    @OptionGroup var check: GateCheckOptions<RunGateHelp>

    @Option(
        help: ArgumentHelp(
            "Record the app bundle's images (embedded Frameworks/ and those loaded at launch) as an allow list in this file.",
            valueName: "file"), completion: .file())
    var writeAllowedDylibs: String?

    @Option(
        help: ArgumentHelp(
            "Also benchmark this app (e.g. an empty project), interleaved with the main one on the same devices, and report the gap.",
            valueName: "app"), completion: .file())
    var referenceApp: String?

    @Option(
        help: ArgumentHelp(
            "Keep launching on each device until the 95 % interval of the cold median is within ±PCT % of it (at least 5 iterations).",
            valueName: "pct"))
    var targetPrecision: Double?

    @Flag(
        help: ArgumentHelp(
            "With --baseline: launch on each device only until the gate's verdict (cold, and warm when measured) is "
                + "settled — regression, improvement or unchanged within ±threshold — with error rates that hold "
                + "under the repeated looks; at --max-iterations unsettled is insufficient data (exit 3). With "
                + "--against: pair only until the pairs decide; at --max-iterations undecided is no change shown "
                + "(exit 0, with the smallest change the pairs could show); fewer pairs than the test can reject "
                + "from (6) are undecided (exit 3)."))
    var untilVerdict = false

    @Option(
        help: ArgumentHelp(
            "With --target-precision (default 50) or --until-verdict (default 30; 40 pairs with --against): the most "
                + "iterations per device.",
            valueName: "n"))
    var maxIterations: Int?

    func validate() throws {
        if baseline != nil && against != nil {
            throw ValidationError(
                "Use either --against BASE.app (both builds measured in this run, paired) or --baseline PATH (an "
                    + "earlier run), not both.")
        }
        if baseline == nil && against == nil {
            let comparisonOnly = [
                (!check.metrics.isEmpty, "--metric"), (check.junit != nil, "--junit"),
                (check.markdown != nil, "--markdown"),
            ]
            for (given, name) in comparisonOnly where given {
                throw ValidationError(
                    "\(name) only applies with --baseline PATH (the run to compare with) or --against BASE.app.")
            }
        }
        if check.allowedDylibs != nil && writeAllowedDylibs != nil {
            throw ValidationError("Use either --allowed-dylibs (check) or --write-allowed-dylibs (record), not both.")
        }
        try OutputPaths.checkFile(writeAllowedDylibs, option: "--write-allowed-dylibs", example: "allowed-dylibs.txt")
        if let targetPrecision {
            let floor = DecimalText.fixed(OptionCeilings.targetPrecisionFloor, maxFractionDigits: 2)
            guard targetPrecision.isFinite, targetPrecision >= OptionCeilings.targetPrecisionFloor,
                targetPrecision < 100
            else {
                throw ValidationError(
                    "--target-precision \(targetPrecision) must be a percentage from \(floor) and below 100, e.g. "
                        + "--target-precision 3.")
            }
        }
        if untilVerdict {
            guard baseline != nil || against != nil else {
                throw ValidationError(
                    "--until-verdict needs --baseline PATH or --against BASE.app: the verdict is a comparison with "
                        + "an earlier run or with another build.")
            }
            guard targetPrecision == nil else {
                throw ValidationError(
                    "Use either --until-verdict (stop when the comparison is settled) or --target-precision (stop when "
                        + "the median is precise), not both.")
            }
        }
        if let maxIterations {
            guard targetPrecision != nil || untilVerdict else {
                throw ValidationError(
                    "--max-iterations only applies with --target-precision PCT or --until-verdict; for a fixed count "
                        + "use --iterations.")
            }
            guard (5...OptionCeilings.iterations).contains(maxIterations) else {
                throw ValidationError(
                    "--max-iterations \(maxIterations) must be from 5 (the minimum) to the ceiling of "
                        + "\(OptionCeilings.iterations).")
            }
            let fewestPairs = PairedSequentialVerdict.fewestPairs(alpha: check.settings.alpha)
            if against != nil, maxIterations < fewestPairs {
                throw ValidationError(
                    "--max-iterations \(maxIterations) with --against: the pairs' signed-rank test can show no change "
                        + "from fewer than \(fewestPairs) pairs; use --max-iterations \(fewestPairs) or more.")
            }
        }
    }

    /// The gate's settings: the shared checks', judged sequentially with `--until-verdict`.
    var settings: GateSettings {
        var settings = check.settings
        if let design { settings.sequential = design }
        return settings
    }

    /// `--until-verdict`'s design: looks from the gate's minimum launches to `--max-iterations` (30).
    var design: SequentialVerdict? {
        untilVerdict && against == nil
            ? SequentialVerdict(minimumLaunches: check.settings.minimumLaunches, maxLaunches: maxIterations ?? 30) : nil
    }

    /// `--against --until-verdict`: looks from the gate's minimum launches to `--max-iterations` (40) pairs.
    var pairedDesign: PairedSequentialVerdict? {
        untilVerdict && against != nil
            ? PairedSequentialVerdict(
                minimumPairs: check.settings.minimumLaunches, maxPairs: maxIterations ?? 40,
                alpha: check.settings.alpha)
            : nil
    }

    var stopping: AdaptiveStopping? {
        targetPrecision.map { AdaptiveStopping(targetPrecisionPercent: $0, maxIterations: maxIterations ?? 50) }
    }
}
