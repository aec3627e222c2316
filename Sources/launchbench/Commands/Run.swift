import ArgumentParser
import Foundation
import LaunchBench
import LaunchEngines

/// `launchbench run APP`: the benchmark itself.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure an app's launch time on attached iPhones, cold and warm, many times.",
        discussion: """
            Per iteration the app is reinstalled (a cold start without rebooting), launched cold, then launched \
            again warm (--warm times). Every launch runs through the device's debugserver with \
            DYLD_PRINT_STATISTICS=1, so dyld prints its pre-main phases (iOS 9–12; iOS 13–14 only with an \
            override variable such as DYLD_INSERT_LIBRARIES); after-main comes from the app's own \
            `[launchbench] mark=NAME t=MS` lines (LaunchProbe), the only source from iOS 15 on. A launch ends \
            when the app exits, when its statistics or firstFrame/done marker arrived (plus a short grace; once \
            an earlier launch printed firstFrame/done, the statistics alone no longer end one), or at --timeout; \
            an app that exits with a non-zero status is never `ok` (exited-early, or crashed before completing). \
            Devices run in parallel; every launch is written to DIR/samples.jsonl as it is measured, with its raw \
            output in DIR/logs/, so Ctrl-C loses nothing. iOS 17+ devices have no debugserver in lockdown: they \
            are launched through devicectl (macOS, Xcode 16+) or pymobiledevice3 (--engine), or skipped with \
            advice naming what to install.

            Results folder: --output must name a new or empty folder. A folder holding an earlier run's results \
            is replaced only with --overwrite, and then only the files launchbench wrote there are removed \
            (run.json, samples.*, summary.*, report.html, logs/, reference/); your other files stay. A folder \
            holding anything else, and the folder of --baseline, are never written into.

            CI gate: --baseline compares the run with an earlier results folder when it ends (see `launchbench \
            compare`); --allowed-dylibs fails on any image from the app bundle the list does not name (checked \
            in Frameworks/ before launching and, with DYLD_PRINT_LIBRARIES=1, at every launch); \
            --target-precision keeps launching until the cold median is known within ±PCT %; --until-verdict \
            keeps launching on each device only until the comparison with --baseline is settled.

            A/B run: `run NEW.app --against BASE.app` measures both builds of one app on every device in the same \
            run, interleaved per iteration in ABBA order (iteration 1 NEW then BASE, iteration 2 BASE then NEW, …), \
            each with its reinstall, cold and warm launches, so each iteration gives a pair and the phone's drift \
            weighs on both alike. The verdict per device and launch kind comes from the pairs' log ratios (a \
            sequential signed-rank interval; see Documentation/Statistics.md) and names the smallest change the \
            pairs could show; --until-verdict stops each device as soon as its pairs decide (default cap 40 pairs). \
            NEW's launches are in DIR, BASE's in DIR/base/, each sample naming its build; `report DIR` and \
            `compare DIR` give the verdict again. The same build twice is an A/A run (a note says so).

            One run per device at a time: a device another launchbench run is measuring is left out, naming \
            that run's process; when every selected device is busy the run is refused (exit 1).

            Signals: Ctrl-C (SIGINT), SIGTERM, SIGHUP (the terminal or SSH session closed) and SIGQUIT end the \
            run cleanly (launches in flight are ended, run.json says interrupted, the exports are written) and \
            exit 128+signal; a second one quits at once. When stdout or stderr is closed (`| head`, a lost \
            terminal) the run stops printing and goes on measuring and writing its results folder.

            Exit codes: 0 every launch measured, 3 a launch failed or measured nothing (no-metrics) or a device \
            was busy, skipped or lost, 1 an error (e.g. a results write failed: the message names the file), \
            128+signal interrupted (130 Ctrl-C), 64 bad options (also a bad USBMUXD_SOCKET_ADDRESS, or a --output, \
            --junit, --markdown or --write-allowed-dylibs path that cannot be written, refused before the first \
            launch). With \
            --baseline the gate decides: 0 no regression, 2 regression (or an unlisted dylib), 3 too many failed \
            launches to judge, 5 baseline not found. With --against: 0 NEW unchanged or faster (or no change \
            shown at the cap), 2 NEW slower, 3 undecided (too few pairs, a device lost before its pairs decided); \
            64 for BASE of another bundle id or with --baseline.
            """
    )

    @Argument(help: "The app: an .app folder or an .ipa (development-signed).", completion: .file())
    var app: String

    @Option(
        name: .customLong("device"),
        help: ArgumentHelp("Measure only this device (repeatable; default: every attached device).", valueName: "udid"))
    var devices: [String] = []

    @Option(help: "Iterations per device: each is one cold launch plus --warm warm launches (default 10).")
    var iterations: Int?

    @Option(help: ArgumentHelp("How each cold launch is made cold: reinstall, reboot or none.", valueName: "mode"))
    var cold: RunPlan.ColdMode = .reinstall

    @Option(help: ArgumentHelp("Warm launches after each cold launch.", valueName: "k"))
    var warm: Int = 1

    @Option(
        help: ArgumentHelp(
            "The app's dSYM (a .dSYM bundle, a folder of them, or a DWARF file): names the static initializers "
                + "kdebug times when the binaries are stripped (matched by UUID).", valueName: "path"),
        completion: .file())
    var dsym: String?

    @Option(
        name: .customLong("env"),
        help: ArgumentHelp(
            "Environment variable for the app, NAME=VALUE (repeatable; the value may hold '=', spaces, any text).",
            valueName: "name=value"))
    var environment: [String] = []

    @Option(
        help: ArgumentHelp(
            "Seconds after which a launch still running is killed (status timeout), 1 to 3600.",
            valueName: "seconds"))
    var timeout: Double = 30

    @Option(
        help: ArgumentHelp(
            "With --cold reboot: seconds to wait after the device is back, before launching.", valueName: "seconds"))
    var settle: Double = 30

    @Option(help: ArgumentHelp("Seconds to keep reading after a launch is complete.", valueName: "seconds"))
    var grace: Double = 0.5

    @Flag(
        help: ArgumentHelp(
            "Count a cold launch after the phone prelaunched the app, and a launch whose closure dyld rebuilt, in "
                + "the statistics (they are labelled and named either way)."))
    var countPrelaunched = false

    @OptionGroup var results: OutputOptions

    @OptionGroup var connection: ConnectionOptions

    @OptionGroup(title: "Launch engine") var engines: EngineOptions

    @OptionGroup(title: "CI gate") var gate: GateOptions

    @OptionGroup(title: "Device conditions") var conditions: ConditionOptions

    func validate() throws {
        if let iterations {
            guard (1...OptionCeilings.iterations).contains(iterations) else {
                throw ValidationError(
                    "--iterations \(iterations) is out of range. Use a number from 1 to the ceiling of "
                        + "\(OptionCeilings.iterations) (10 is a good start).")
            }
            guard !gate.untilVerdict else {
                throw ValidationError(
                    "--until-verdict decides how many iterations each device needs; drop --iterations (use "
                        + "--max-iterations N for the most).")
            }
        }
        guard (0...OptionCeilings.warmLaunches).contains(warm) else {
            throw ValidationError(
                "--warm \(warm) is out of range. Use 0 (cold launches only) up to the ceiling of "
                    + "\(OptionCeilings.warmLaunches).")
        }
        for assignment in environment {
            guard let variable = EnvironmentVariable(assignment: assignment) else {
                throw ValidationError(
                    "--env \(assignment) is not NAME=VALUE. Write it as e.g. --env DYLD_INSERT_LIBRARIES=/path/lib.dylib."
                )
            }
            guard !variable.name.contains(where: { $0.isWhitespace }) else {
                throw ValidationError(
                    "--env \(assignment): the name \"\(variable.name)\" contains whitespace. Names are like MY_FLAG; only the value may hold spaces."
                )
            }
        }
        let durations: [(Double, String, Double, Bool, Double?, String)] = [
            (timeout, "--timeout", OptionCeilings.timeoutSeconds, false, OptionCeilings.timeoutFloorSeconds, "30"),
            (settle, "--settle", OptionCeilings.settleSeconds, true, nil, "30"),
            (grace, "--grace", OptionCeilings.graceSeconds, true, nil, "0.5"),
        ]
        for (seconds, option, ceiling, allowsZero, minimum, example) in durations {
            if let problem = OptionCeilings.problem(
                seconds: seconds, option: option, ceiling: ceiling, allowsZero: allowsZero, minimum: minimum,
                example: example)
            {
                throw ValidationError(problem)
            }
        }
        if gate.against != nil && cold != .reinstall {
            throw ValidationError(
                "--against measures two builds of one app, which replace each other on the phone: each iteration "
                    + "reinstalls each build, so --cold \(cold.rawValue) cannot apply. Drop --cold (reinstall).")
        }
        guard grace < timeout else {
            throw ValidationError("--grace \(grace) must be below --timeout (\(timeout)), e.g. --grace 0.5.")
        }
    }

    func run() async throws {
        let bundle = try AppBundle(contentsOf: URL(fileURLWithPath: app))
        let runGate = try RunGate(options: gate, app: bundle)
        var plan = runGate.adjust(
            RunPlan(
                app: bundle, deviceUDIDs: devices, iterations: iterations ?? 10, coldMode: cold, warmLaunches: warm,
                environment: environment.compactMap(EnvironmentVariable.init(assignment:)),
                timeout: Self.duration(timeout),
                grace: Self.duration(grace), settle: Self.duration(settle), premain: engines.premainSelection))
        plan.launcher = engines.launcherChoice
        plan.conditions = conditions.policy
        plan.countPrelaunched = countPrelaunched
        plan.initializerSymbols = Self.initializerSymbols(dsym: dsym)
        let usbmuxd = connection.apply()
        let code = try await RunExecution.execute(
            plan, engines: engines.setup(usbmuxd: usbmuxd), usbmuxd: usbmuxd, output: results.output,
            overwrite: results.overwrite, gate: runGate,
            mangledNamesNote: plan.initializerSymbols.demangler == nil ? Self.noDemanglerNote : nil)
        if code != .success { throw code }
    }

    static func duration(_ seconds: Double) -> Duration { .seconds(clamping: seconds) }

    /// `--dsym` and the toolchain's `swift-demangle`; without the latter, `noDemanglerNote` is said once, when a
    /// kdebug launch names a Swift initializer (`MangledNamesNote`), not on every run.
    static func initializerSymbols(dsym: String?) -> InitializerSymbolSources {
        InitializerSymbolSources(dsym: dsym.map { URL(fileURLWithPath: $0) }, demangler: SwiftDemangleTool.locate())
    }

    /// Why a Swift initializer's name stays mangled.
    static let noDemanglerNote =
        "no swift-demangle beside a swift on PATH (or \(SwiftDemangleTool.environmentVariable)): Swift initializers "
        + "keep their mangled names."
}

extension RunPlan.ColdMode: ExpressibleByArgument {}
