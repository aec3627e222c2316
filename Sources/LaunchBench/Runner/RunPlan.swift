/// What a benchmark run does: which devices, how many launches of which kind, with what environment.
package struct RunPlan: Sendable {
    /// How each iteration makes its launch cold.
    package enum ColdMode: String, Sendable, Hashable, CaseIterable {
        /// Uninstall and install the app before every cold launch (the default: fast, low noise).
        case reinstall
        /// Restart the device, wait until it is back and settled, then launch.
        case reboot
        /// Install once at the start; the "cold" launch is simply the first of each iteration.
        case none
    }

    /// The app to install and launch.
    package var app: AppBundle
    /// Devices to measure; empty = every attached device.
    package var deviceUDIDs: [String]
    /// Iterations (reinstall, cold launch, warm launches) per device.
    package var iterations: Int
    /// How each cold launch is made cold.
    package var coldMode: ColdMode
    /// Warm launches after each cold launch.
    package var warmLaunches: Int
    /// The user's `--env`, in order; `DYLD_PRINT_STATISTICS=1` is always added (see `launchEnvironment`).
    package var environment: [EnvironmentVariable]
    /// Command-line arguments for the app.
    package var arguments: [String]
    /// A launch still running this long after `continue` is killed (status `timeout`).
    package var timeout: Duration
    /// How long to keep reading after the launch is complete, so late lines land in the log.
    package var grace: Duration
    /// With `--cold reboot`: the wait after the device is back, before the cold launch.
    package var settle: Duration
    /// The longest the install step of a reinstall may take (the uninstall and the upload are timed
    /// apart); past it that iteration's sample is `install-failed`.
    package var installTimeout: Duration
    /// The longest a restart may take until the device is attached again.
    package var restartTimeout: Duration
    /// `--target-precision`: stop each device once its cold median is known well enough (then
    /// `iterations` is ignored and `stopping.maxIterations` bounds the run); `nil` = fixed `iterations`.
    package var stopping: AdaptiveStopping? = nil
    /// `--until-verdict`: stop each device once the gate's verdict against the baseline is settled (then
    /// `iterations` is ignored and the design's `maxLaunches` bounds the run); `nil` = not used.
    package var untilVerdict: VerdictStopping? = nil

    /// `--reference-app`: a second app (e.g. an empty project) launched the same way right after the
    /// main app in every iteration, on the same device; its samples go to `DIR/reference/`.
    package var referenceApp: AppBundle? = nil
    /// `--against`: the base build of an A/B run (the same app, another build), measured on every device in
    /// the same run, interleaved with ``app`` (the new build) iteration by iteration in ABBA order; its samples
    /// go to `DIR/base/`. `nil` in any other run.
    package var against: AppBundle? = nil
    /// Which build of an A/B run this plan launches (`Sample.build`: `new` or `base`); `nil` in any other run.
    package var build: String? = nil
    /// `run --against --until-verdict`: stop each device once the pairs decide (then `iterations` is ignored
    /// and the design's `maxPairs` bounds the run); `nil` = not used.
    package var pairedVerdict: PairedStopping? = nil

    /// Where pre-main phases come from on each device (`--premain`).
    package var premain: PremainSelection = .auto
    /// How each device's app is launched (`--launcher`).
    package var launcher: LauncherChoice = .auto
    /// `--count-prelaunched`: count a cold launch after a prelaunch, and a launch whose closure dyld rebuilt, in
    /// the statistics (they are labelled either way; see `LaunchDisturbance`).
    package var countPrelaunched = false
    /// Where kdebug's static initializers get their function names (`--dsym`, `swift-demangle`).
    package var initializerSymbols = InitializerSymbolSources()
    /// The device conditions recorded before each iteration, and those `--require` waits for.
    package var conditions = ConditionPolicy()

    /// The plan for the reference app's launches: same settings, its own app, a reinstall as its cold
    /// start (a reboot per app would double a reboot run's length), no adaptive stopping of its own.
    package var referencePlan: RunPlan? {
        guard let referenceApp else { return nil }
        var plan = self
        plan.app = referenceApp
        plan.referenceApp = nil
        plan.against = nil
        plan.build = nil
        plan.stopping = nil
        plan.untilVerdict = nil
        plan.pairedVerdict = nil
        if plan.coldMode == .reboot { plan.coldMode = .reinstall }
        return plan
    }

    /// The plan for an A/B run's base build: the same settings and its own bundle, marked `base`, with no
    /// stopping rule of its own (the device's rules read both builds' launches).
    package var basePlan: RunPlan? {
        guard let against else { return nil }
        var plan = self
        plan.app = against
        plan.against = nil
        plan.referenceApp = nil
        plan.build = RunManifest.baseBuild
        plan.stopping = nil
        plan.untilVerdict = nil
        plan.pairedVerdict = nil
        return plan
    }

    /// The most iterations a device may run.
    package var iterationLimit: Int {
        stopping?.maxIterations ?? untilVerdict?.design.maxLaunches ?? pairedVerdict?.design.maxPairs ?? iterations
    }

    /// A plan; the defaults are `run`'s (30 s launch timeout, 0.5 s grace, 300 s for installs and restarts).
    package init(
        app: AppBundle, deviceUDIDs: [String] = [], iterations: Int = 10, coldMode: ColdMode = .reinstall,
        warmLaunches: Int = 1, environment: [EnvironmentVariable] = [], arguments: [String] = [],
        timeout: Duration = .seconds(30), grace: Duration = .milliseconds(500), settle: Duration = .seconds(30),
        installTimeout: Duration = .seconds(300), restartTimeout: Duration = .seconds(300),
        premain: PremainSelection = .auto
    ) {
        self.premain = premain
        self.app = app
        self.deviceUDIDs = deviceUDIDs
        self.iterations = iterations
        self.coldMode = coldMode
        self.warmLaunches = warmLaunches
        self.environment = environment
        self.arguments = arguments
        self.timeout = timeout
        self.grace = grace
        self.settle = settle
        self.installTimeout = installTimeout
        self.restartTimeout = restartTimeout
    }

    /// The variable that asks dyld for its pre-main statistics.
    package static let statisticsVariable = EnvironmentVariable(name: "DYLD_PRINT_STATISTICS", value: "1")
    /// Tells an app built with LaunchProbe that the harness launched it (it exits after `done`).
    package static let harnessVariable = EnvironmentVariable(name: "LAUNCHBENCH_HARNESS", value: "1")

    /// What every launch gets: `LAUNCHBENCH_HARNESS=1`, the user's variables, then `DYLD_PRINT_STATISTICS=1`
    /// last, so that it is set whatever the user passed (the last of repeated names wins on the device).
    package var launchEnvironment: [EnvironmentVariable] {
        [Self.harnessVariable] + environment + [Self.statisticsVariable]
    }

    /// The pre-main source for `device` under ``premain``; `nil` when none gives phases there.
    package func premainSource(for device: DeviceInfo) -> PremainSource? {
        premain.source(for: device.version, setsDyldOverride: setsDyldOverride)
    }

    /// Whether `device`'s launches are also read through kdebug to check dyld's statistics against it.
    package func crossChecksPremain(on device: DeviceInfo) -> Bool {
        premain.crossChecks(device.version, setsDyldOverride: setsDyldOverride)
    }

    /// Whether the user's environment forces dyld3 (iOS 13–14) onto the dyld2 path that prints statistics.
    package var setsDyldOverride: Bool {
        environment.contains { DyldStatisticsSupport.overrideVariables.contains($0.name) && !$0.value.isEmpty }
    }
}
